-- Activates a different redeemed voucher with each request: ids from FIRST_VOUCHER on, wrk's two threads
-- taking the even and the odd ones, so no voucher is activated twice.
local counter = 0

function setup(thread)
    thread:set("offset", counter)
    counter = counter + 1
end

function init(args)
    next_id = tonumber(os.getenv("FIRST_VOUCHER") or error("set FIRST_VOUCHER to the first voucher's id")) + offset
end

function request()
    local id = next_id
    next_id = next_id + 2
    -- No headers of its own: wrk.format would then leave out the bearer token given on the command line.
    return wrk.format("POST", "/api/v1/pharmacy/vouchers/" .. id .. "/activate")
end
