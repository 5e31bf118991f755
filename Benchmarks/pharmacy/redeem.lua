-- Redeems reward 1 again and again, each request with the next of the customers' bearer tokens
-- (BENCH_TOKENS, comma-separated; one token for one customer's app).
local tokens = {}
for token in string.gmatch(os.getenv("BENCH_TOKENS") or error("set BENCH_TOKENS"), "[^,]+") do tokens[#tokens + 1] = token end

local counter = 0
function setup(thread)
    thread:set("offset", counter)
    counter = counter + 1
end

local sent = 0
function request()
    sent = sent + 1
    local token = tokens[(sent * 2 + (offset or 0)) % #tokens + 1]
    return wrk.format("POST", "/api/v1/pharmacy/vouchers",
        { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }, '{"reward_id": 1}')
end
