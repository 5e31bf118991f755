-- Activates a different redeemed voucher with each request: ids from FIRST_VOUCHER on, wrk's two threads
-- taking the even and the odd ones, so no voucher is activated twice. Voucher FIRST_LOADED + k belongs to
-- the customer of the k-th token of BENCH_TOKENS (counting from 0, modulo their number): it goes with hers.
local tokens = {}
for token in string.gmatch(os.getenv("BENCH_TOKENS") or error("set BENCH_TOKENS"), "[^,]+") do tokens[#tokens + 1] = token end
local first = tonumber(os.getenv("FIRST_VOUCHER") or error("set FIRST_VOUCHER to the first voucher's id"))
local loaded = tonumber(os.getenv("FIRST_LOADED") or error("set FIRST_LOADED to the first loaded voucher's id"))

local counter = 0
function setup(thread)
    thread:set("offset", counter)
    counter = counter + 1
end

function init(args)
    next_id = first + offset
end

function request()
    local id = next_id
    next_id = next_id + 2
    return wrk.format("POST", "/api/v1/pharmacy/vouchers/" .. id .. "/activate",
        { ["Authorization"] = "Bearer " .. tokens[(id - loaded) % #tokens + 1] })
end

-- The first few refusals, so a benchmark that fails says why.
local refused = 0
function response(status, headers, body)
    if status >= 300 and refused < 3 then
        refused = refused + 1
        io.stderr:write("activate answered " .. status .. ": " .. (body or "") .. "\n")
    end
end
