-- The app's event batches for wrk: POST /api/v1/events with ANALYTICS_BATCH events (app opens and section
-- views, as AppEventBatch in api/openapi.json), each with its own client_id, happening now; the bearer
-- token changes from one request to the next (ANALYTICS_TOKENS is a file of tokens, one a line).
-- ANALYTICS_RATE (events a second over all connections) paces the batches for a steady load: each thread
-- sends its share on a fixed schedule (wrk's delay(), from the monotonic clock), so a slow answer is not
-- followed by a burst; without it (or 0) the batches go as fast as they are answered.
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } careportal_timespec;
int clock_gettime(int clock, careportal_timespec *now);
]]
local function milliseconds()
    local now = ffi.new("careportal_timespec")
    ffi.C.clock_gettime(1, now)  -- CLOCK_MONOTONIC
    return tonumber(now.tv_sec) * 1000 + tonumber(now.tv_nsec) / 1e6
end

local size = tonumber(os.getenv("ANALYTICS_BATCH") or "20")
local rate = tonumber(os.getenv("ANALYTICS_RATE") or "0")
local thread_count = tonumber(os.getenv("ANALYTICS_THREADS") or "2")
local tokens = {}
for line in io.lines(os.getenv("ANALYTICS_TOKENS")) do tokens[#tokens + 1] = line end
local sections = { "home", "chat", "desk", "learning", "surveys", "calendar", "resources", "notifications", "points", "moods", "profile" }

local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("thread_number", threads)
end

local started, sequence, due, interval = 0, 0, 0, 0
function init(args)
    started = os.time()
    math.randomseed(started * 100 + (thread_number or 0))
    if rate > 0 then
        -- This thread's batches a second is rate / size / threads; the threads start half an interval apart.
        interval = 1000 * size * thread_count / rate
        due = milliseconds() + interval * ((thread_number or 1) - 1) / thread_count
    end
end

if rate > 0 then
    function delay()
        due = due + interval
        return math.max(0, math.floor(due - milliseconds()))
    end
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
