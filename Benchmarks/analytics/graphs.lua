-- Varied choices for one Analytics page, for wrk: each request asks for a random range (a preset or
-- custom dates within the seeded 18 months), granularity, cohort filter (all, one or several) and
-- comparison, never the same address twice in a row, so no page can come from an earlier identical
-- request. ANALYTICS_PAGE is the page's path, ANALYTICS_COOKIE the administrator's session cookie,
-- ANALYTICS_COHORTS and ANALYTICS_SURVEYS the ids to choose from (comma-separated).
local page = os.getenv("ANALYTICS_PAGE")
local cookie = os.getenv("ANALYTICS_COOKIE")
local function ids(text)
    local list = {}
    for id in string.gmatch(text or "", "[^,]+") do list[#list + 1] = id end
    return list
end
local cohorts = ids(os.getenv("ANALYTICS_COHORTS"))
local surveys = ids(os.getenv("ANALYTICS_SURVEYS"))

local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("thread_number", threads)
end

function init(args)
    math.randomseed(os.time() * 100 + (thread_number or 0))
end

local presets = { "7d", "30d", "90d", "month", "all", "custom" }
local granularities = { "day", "week", "month" }
local span = 548  -- days of seeded events

local function day(daysAgo) return os.date("!%Y-%m-%d", os.time() - daysAgo * 86400) end

local function choices()
    local parts = {}
    local range = presets[math.random(#presets)]
    parts[#parts + 1] = "range=" .. range
    if range == "custom" then
        local from = math.random(0, span)
        local to = math.random(0, from)
        parts[#parts + 1] = "from=" .. day(from)
        parts[#parts + 1] = "to=" .. day(to)
    end
    parts[#parts + 1] = "by=" .. granularities[math.random(#granularities)]
    -- All cohorts a third of the time, otherwise one to four distinct cohorts.
    local chosen = 0
    if math.random(3) > 1 then
        local wanted, seen = math.random(4), {}
        for _ = 1, wanted do
            local cohort = cohorts[math.random(#cohorts)]
            if not seen[cohort] then
                seen[cohort] = true
                chosen = chosen + 1
                parts[#parts + 1] = "cohort=" .. cohort
            end
        end
    end
    local compare = "none"
    local pick = math.random(3)
    if pick == 2 then compare = "previous" elseif pick == 3 and chosen >= 2 then compare = "cohorts" end
    parts[#parts + 1] = "compare=" .. compare
    if #surveys > 0 then parts[#parts + 1] = "survey=" .. surveys[math.random(#surveys)] end
    return table.concat(parts, "&")
end

local last = ""
function request()
    local query = choices()
    while query == last do query = choices() end
    last = query
    return wrk.format("GET", page .. "?" .. query, { ["Cookie"] = cookie })
end
