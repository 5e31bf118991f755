"""Chat benchmark client: LISTENERS WebSockets in one room, messages posted through the API.

    listeners.py LISTEN_BASE POST_BASE TOKENS_FILE LISTENERS POSTERS

TOKENS_FILE holds one bearer token per line: the first LISTENERS listen, the next POSTERS post.
Prints, as JSON: the delivery latency from a POST being answered to the last listener receiving the
message (200 messages, 20 a second), then a sustained phase of 100 messages a second for 10 seconds
with each POST's own latency. Posters take turns so none exceeds the chat's limit of one a second.
"""
import asyncio
import json
import statistics
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import websockets

listen_base, post_base, tokens_file = sys.argv[1], sys.argv[2], sys.argv[3]
listener_count, poster_count = int(sys.argv[4]), int(sys.argv[5])
tokens = [line.strip() for line in open(tokens_file) if line.strip()]
listener_tokens, poster_tokens = tokens[:listener_count], tokens[listener_count:listener_count + poster_count]

last_seen = {}      # message id -> monotonic time the latest listener received it
seen_count = {}     # message id -> how many listeners received it
connected = 0


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


async def listen(token, ready):
    global connected
    url = listen_base.replace("http", "ws", 1) + "/api/v1/chat/live"
    async with websockets.connect(url, additional_headers={"Authorization": "Bearer " + token},
                                  max_queue=None, ping_interval=None) as socket:
        connected += 1
        if connected == listener_count:
            ready.set()
        async for frame in socket:
            now = time.monotonic()
            event = json.loads(frame)
            if event.get("type") == "message":
                message_id = event["message"]["id"]
                last_seen[message_id] = now
                seen_count[message_id] = seen_count.get(message_id, 0) + 1


def post(token, index):
    body = json.dumps({"body": "benchmark message %d" % index, "client_id": "bench-%d-%f" % (index, time.time())}).encode()
    request = urllib.request.Request(post_base + "/api/v1/chat/messages", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + token})
    started = time.monotonic()
    with urllib.request.urlopen(request) as response:
        message = json.load(response)
    answered = time.monotonic()
    return message["id"], started, answered


async def main():
    ready = asyncio.Event()
    tasks = [asyncio.create_task(listen(token, ready)) for token in listener_tokens]
    await asyncio.wait_for(ready.wait(), timeout=120)
    await asyncio.sleep(2)
    loop = asyncio.get_running_loop()
    pool = ThreadPoolExecutor(max_workers=32)

    # Delivery: 200 messages, 20 a second.
    answered_at = {}
    for index in range(200):
        message_id, _, answered = await loop.run_in_executor(pool, post, poster_tokens[index % poster_count], index)
        answered_at[message_id] = answered
        await asyncio.sleep(0.05)
    await asyncio.sleep(3)
    delivery = [max(0.0, last_seen[m] - t) * 1000 for m, t in answered_at.items() if m in last_seen]
    complete = sum(1 for m in answered_at if seen_count.get(m, 0) == listener_count)

    # Sustained: 100 messages a second for 10 seconds.
    futures = []
    start = time.monotonic()
    for index in range(1000):
        delay = start + index / 100 - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        futures.append(loop.run_in_executor(pool, post, poster_tokens[(200 + index) % poster_count], 200 + index))
    results = await asyncio.gather(*futures)
    elapsed = time.monotonic() - start
    post_latency = [(answered - started) * 1000 for _, started, answered in results]
    await asyncio.sleep(3)
    sustained_complete = sum(1 for m, _, _ in results if seen_count.get(m, 0) == listener_count)

    print(json.dumps({
        "listeners": listener_count,
        "delivery_ms": {"p50": round(percentile(delivery, 50), 1), "p99": round(percentile(delivery, 99), 1),
                        "max": round(max(delivery), 1), "messages": len(answered_at),
                        "reached_every_listener": complete},
        "sustained": {"messages": len(results), "seconds": round(elapsed, 1), "per_second": round(len(results) / elapsed, 1),
                      "post_p50_ms": round(percentile(post_latency, 50), 1), "post_p99_ms": round(percentile(post_latency, 99), 1),
                      "reached_every_listener": sustained_complete},
    }))
    for task in tasks:
        task.cancel()


asyncio.run(main())
