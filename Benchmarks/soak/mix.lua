-- A mix of CarePortal's traffic for wrk: staff pages with an administrator's session cookie, the
-- members' app API with bearer tokens, and writes (calendar entries and app events) — about one
-- request in five writes. SOAK_COOKIE is the session cookie, SOAK_TOKENS a file of bearer tokens,
-- SOAK_PAUSE_MS (default 0) a pause each connection takes between its requests, for a steady rather
-- than a flat-out load.
local cookie = os.getenv("SOAK_COOKIE")
local tokens = {}
for line in io.lines(os.getenv("SOAK_TOKENS")) do tokens[#tokens + 1] = line end

local pause = tonumber(os.getenv("SOAK_PAUSE_MS") or "0")
function delay()
    return pause
end

local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("thread_number", threads)
end

local sequence = 0
function init(args)
    math.randomseed(os.time() * 100 + (thread_number or 0))
end

local staff_pages = { "/", "/members", "/members?sort=pseudonym&order=asc&page=3", "/desk", "/audit", "/cohorts" }
local member_reads = { "/api/v1/notifications", "/api/v1/notifications/unread-count", "/api/v1/chat",
                       "/api/v1/learning", "/api/v1/threads", "/api/v1/me" }

local function member_headers(extra)
    local headers = { ["Authorization"] = "Bearer " .. tokens[math.random(#tokens)] }
    if extra then headers["Content-Type"] = "application/json" end
    return headers
end

function request()
    sequence = sequence + 1
    local pick = math.random(100)
    if pick <= 35 then
        return wrk.format("GET", staff_pages[math.random(#staff_pages)], { ["Cookie"] = cookie })
    elseif pick <= 80 then
        return wrk.format("GET", member_reads[math.random(#member_reads)], member_headers(false))
    elseif pick <= 90 then
        local now = os.date("!%Y-%m-%dT%H:%M:%SZ")
        local id = string.format("soak-%d-%d-%d", thread_number or 0, os.time(), sequence)
        local body = string.format('{"events":[{"client_id":"%s","kind":"section_viewed","section":"learning","seconds":%d,"occurred_at":"%s"}]}',
            id, math.random(300), now)
        return wrk.format("POST", "/api/v1/events", member_headers(true), body)
    else
        local day = os.date("!%Y-%m-%d", os.time() + 86400 * math.random(1, 60))
        local body = string.format('{"kind":"appointment","title":"Check-up %d","date":"%s","times":["09:30"],"repeats":"never"}',
            sequence, day)
        return wrk.format("POST", "/api/v1/calendar/events", member_headers(true), body)
    end
end
