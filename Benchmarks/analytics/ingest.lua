-- The app's event batches for wrk: POST /api/v1/events with ANALYTICS_BATCH events (app opens and section
-- views, as AppEventBatch in api/openapi.json), each with its own client_id, happening now; the bearer
-- token changes from one request to the next (ANALYTICS_TOKENS is a file of tokens, one a line).
local size = tonumber(os.getenv("ANALYTICS_BATCH") or "20")
local tokens = {}
for line in io.lines(os.getenv("ANALYTICS_TOKENS")) do tokens[#tokens + 1] = line end
local sections = { "home", "chat", "desk", "learning", "surveys", "calendar", "resources", "notifications", "points", "moods", "profile" }

local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("thread_number", threads)
end

local started, sequence = 0, 0
function init(args)
    started = os.time()
    math.randomseed(started * 100 + (thread_number or 0))
end

function request()
    sequence = sequence + 1
    local now = os.date("!%Y-%m-%dT%H:%M:%SZ")
    local events = {}
    for i = 1, size do
        local id = string.format("bench-%d-%d-%d-%d", thread_number or 0, started, sequence, i)
        if i % 2 == 1 then
            events[i] = string.format('{"client_id":"%s","kind":"app_opened","occurred_at":"%s"}', id, now)
        else
            events[i] = string.format('{"client_id":"%s","kind":"section_viewed","section":"%s","seconds":%d,"occurred_at":"%s"}',
                id, sections[math.random(#sections)], math.random(600), now)
        end
    end
    local token = tokens[(sequence * 7 + (thread_number or 0) * 131) % #tokens + 1]
    return wrk.format("POST", "/api/v1/events",
        { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" },
        '{"events":[' .. table.concat(events, ",") .. "]}")
end
