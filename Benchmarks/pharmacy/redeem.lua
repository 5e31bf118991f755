-- Redeems reward 1 again and again with the customer's bearer token (given as a header on wrk's command line).
wrk.method = "POST"
wrk.path = "/api/v1/pharmacy/vouchers"
wrk.body = '{"reward_id": 1}'
wrk.headers["Content-Type"] = "application/json"
