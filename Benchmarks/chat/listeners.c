/* Chat benchmark client: LISTENERS WebSockets in one room, read by one thread (epoll), so that the
 * client needs little of the two cores it shares with the server; and messages posted through the API
 * from a second thread with its own epoll, so that a POST's answer is timed when it arrives rather than
 * after the listeners' frames read before it.
 *
 *   listeners HOST LISTEN_PORT POST_PORT TOKENS_FILE LISTENERS POSTERS
 *
 * TOKENS_FILE holds one bearer token per line: the first LISTENERS listen, the next POSTERS post.
 * Prints, as JSON: the delivery latency from a POST being answered to the last listener receiving
 * the message (200 messages, 20 a second), then a sustained phase of 100 messages a second for 10
 * seconds with each POST's own latency and how many messages reached every listener. Posters take
 * turns, so none goes over the chat's limit of one message a second. Frames are counted by the
 * message id they carry ("message_id":N in a "message" frame); pings are answered.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_IDS 200000
#define BUFFER 262144
#define POST_CONNECTIONS 32
#define DELIVERY_MESSAGES 200
#define SUSTAINED_MESSAGES 1000

typedef struct {
    int fd;
    int is_post;
    int upgraded;  /* listeners: the 101 answer has been read */
    int busy;      /* posts: a request is out */
    double sent_at;
    int message_index;
    size_t used;
    unsigned char buffer[BUFFER];
} connection;

static int listener_count, poster_count;
static char **tokens;
static int *seen_count;
static double *last_seen;
static _Atomic int connected_listeners, closed_listeners;
static const char *host;
static int listen_port, post_port;
static int epoll_fd;       /* the listeners' */
static int post_epoll_fd;  /* the POSTs' */
static atomic_int stopping;

/* Each posted message: when it was answered, its id, the POST's own time. */
static long message_id[DELIVERY_MESSAGES + SUSTAINED_MESSAGES];
static double answered_at[DELIVERY_MESSAGES + SUSTAINED_MESSAGES];
static double post_ms[DELIVERY_MESSAGES + SUSTAINED_MESSAGES];
static int answered_count, failed_posts;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static int open_socket(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) fail("socket");
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, host, &address.sin_addr);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) fail("connect");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void send_all(int fd, const char *data, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, data, length);
        if (written < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            fail("write");
        }
        data += written;
        length -= (size_t)written;
    }
}

static connection *add(int fd, int is_post) {
    connection *c = calloc(1, sizeof *c);
    if (!c) fail("calloc");
    c->fd = fd;
    c->is_post = is_post;
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(is_post ? post_epoll_fd : epoll_fd, EPOLL_CTL_ADD, fd, &event) < 0) fail("epoll_ctl");
    return c;
}

/* The number after "key": at the top level of a JSON object; -1 if there is none. */
static long top_level_number(const char *json, size_t length, const char *key) {
    size_t key_length = strlen(key);
    int depth = 0;
    for (size_t i = 0; i < length; i++) {
        char ch = json[i];
        if (ch == '"') {
            size_t start = i + 1;
            for (i++; i < length && json[i] != '"'; i++)
                if (json[i] == '\\') i++;
            if (depth == 1 && i - start == key_length && memcmp(json + start, key, key_length) == 0 && i + 1 < length &&
                json[i + 1] == ':')
                return strtol(json + i + 2, NULL, 10);
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            depth--;
        }
    }
    return -1;
}

static void on_frame(connection *c, int opcode, const unsigned char *payload, size_t length) {
    if (opcode == 0x9) { /* ping: answer with a pong, masked (with a zero key) as a client must */
        unsigned char header[6] = {0x8A, (unsigned char)(0x80 | length), 0, 0, 0, 0};
        send_all(c->fd, (const char *)header, sizeof header);
        send_all(c->fd, (const char *)payload, length);
        return;
    }
    if (opcode == 0x8) {
        closed_listeners++;
        return;
    }
    if (opcode != 0x1) return;
    const char *text = (const char *)payload;
    if (!memmem(text, length, "\"type\":\"message\"", 16)) return;
    long id = top_level_number(text, length, "message_id");
    if (id <= 0 || id >= MAX_IDS) return;
    seen_count[id]++;
    last_seen[id] = now();
}

/* Reads what a listener's socket has: first the upgrade's answer, then WebSocket frames. */
static void on_listener_readable(connection *c) {
    ssize_t got = read(c->fd, c->buffer + c->used, BUFFER - c->used);
    if (got <= 0) {
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
        closed_listeners++;
        epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        return;
    }
    c->used += (size_t)got;
    size_t at = 0;
    if (!c->upgraded) {
        unsigned char *end = memmem(c->buffer, c->used, "\r\n\r\n", 4);
        if (!end) return;
        if (memcmp(c->buffer, "HTTP/1.1 101", 12) != 0) {
            fprintf(stderr, "the chat's WebSocket was refused: %.*s\n", (int)(end - c->buffer), c->buffer);
            exit(1);
        }
        c->upgraded = 1;
        connected_listeners++;
        at = (size_t)(end - c->buffer) + 4;
    }
    for (;;) {
        if (c->used - at < 2) break;
        unsigned char *frame = c->buffer + at;
        int opcode = frame[0] & 0x0F;
        size_t length = frame[1] & 0x7F, header = 2;
        if (length == 126) {
            if (c->used - at < 4) break;
            length = ((size_t)frame[2] << 8) | frame[3];
            header = 4;
        } else if (length == 127) {
            if (c->used - at < 10) break;
            length = 0;
            for (int i = 0; i < 8; i++) length = (length << 8) | frame[2 + i];
            header = 10;
        }
        if (header + length > BUFFER) {
            fprintf(stderr, "a frame of %zu bytes is larger than the client reads\n", length);
            exit(1);
        }
        if (c->used - at < header + length) break;
        on_frame(c, opcode, frame + header, length);
        at += header + length;
    }
    memmove(c->buffer, c->buffer + at, c->used - at);
    c->used -= at;
}

static void send_post(connection *c, int index) {
    char body[256], request[1024];
    int body_length = snprintf(body, sizeof body, "{\"body\":\"benchmark message %d\",\"client_id\":\"bench-%d-%ld\"}", index,
                               index, (long)time(NULL));
    int length = snprintf(request, sizeof request,
                          "POST /api/v1/chat/messages HTTP/1.1\r\nHost: %s:%d\r\nAuthorization: Bearer %s\r\n"
                          "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
                          host, post_port, tokens[listener_count + index % poster_count], body_length, body);
    c->busy = 1;
    c->message_index = index;
    c->used = 0;
    c->sent_at = now();
    send_all(c->fd, request, (size_t)length);
}

/* Reads a POST's answer; once whole, records its time and the message's id. */
static void on_post_readable(connection *c) {
    ssize_t got = read(c->fd, c->buffer + c->used, BUFFER - c->used - 1);
    if (got <= 0) {
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
        fprintf(stderr, "a POST connection closed\n");
        exit(1);
    }
    c->used += (size_t)got;
    c->buffer[c->used] = 0;
    char *end = strstr((char *)c->buffer, "\r\n\r\n");
    if (!end) return;
    char *length_header = strcasestr((char *)c->buffer, "\r\ncontent-length:");
    size_t body_length = length_header && length_header < end ? strtoul(length_header + 17, NULL, 10) : 0;
    size_t header_length = (size_t)(end - (char *)c->buffer) + 4;
    if (c->used < header_length + body_length) return;
    double answered = now();
    int index = c->message_index;
    int status = atoi((char *)c->buffer + 9);
    post_ms[index] = (answered - c->sent_at) * 1000;
    answered_at[index] = answered;
    if (status == 200 || status == 201) {
        message_id[index] = top_level_number((char *)c->buffer + header_length, body_length, "id");
    } else {
        message_id[index] = -1;
        failed_posts++;
        if (failed_posts <= 3) fprintf(stderr, "a POST was answered %d: %.*s\n", status, (int)body_length, c->buffer + header_length);
    }
    answered_count++;
    c->busy = 0;
    c->used = 0;
}

/* Handles what is ready on `fd` (the listeners' epoll or the POSTs'), waiting up to `timeout_seconds`. */
static void wait_for_events(int fd, double timeout_seconds) {
    struct epoll_event events[256];
    int timeout = timeout_seconds <= 0 ? 0 : (int)(timeout_seconds * 1000) + 1;
    int ready = epoll_wait(fd, events, 256, timeout);
    if (ready < 0 && errno != EINTR) fail("epoll_wait");
    for (int i = 0; i < ready; i++) {
        connection *c = events[i].data.ptr;
        if (c->is_post) on_post_readable(c);
        else on_listener_readable(c);
    }
}

static connection *posts[POST_CONNECTIONS];

/* Posts COUNT messages (from FIRST on), RATE a second, on whichever POST connection is free; waits for every answer. */
static double post_phase(int first, int count, double rate) {
    double start = now();
    int next = 0, target = answered_count + count;
    while (answered_count < target) {
        double due = start + next / rate;
        while (next < count && now() >= due) {
            connection *free_one = NULL;
            for (int i = 0; i < POST_CONNECTIONS && !free_one; i++)
                if (!posts[i]->busy) free_one = posts[i];
            if (!free_one) break;
            send_post(free_one, first + next);
            next++;
            due = start + next / rate;
        }
        wait_for_events(post_epoll_fd, next < count ? due - now() : 0.05);
    }
    return now() - start;
}

/* The listeners' thread: reads every socket until the POSTs are done and their frames drained. */
static void *read_listeners(void *unused) {
    (void)unused;
    while (!atomic_load(&stopping)) wait_for_events(epoll_fd, 0.05);
    return NULL;
}

static void drain(double seconds) {
    struct timespec pause = {.tv_sec = (time_t)seconds, .tv_nsec = (long)((seconds - (time_t)seconds) * 1e9)};
    nanosleep(&pause, NULL);
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile(double *values, int count, double p) {
    if (count == 0) return -1;
    qsort(values, (size_t)count, sizeof *values, compare);
    int index = (int)(p / 100 * (count - 1) + 0.5);
    return values[index < count ? index : count - 1];
}

static int reached_everyone(int first, int count) {
    int complete = 0;
    for (int i = first; i < first + count; i++)
        if (message_id[i] > 0 && message_id[i] < MAX_IDS && seen_count[message_id[i]] == listener_count) complete++;
    return complete;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: listeners HOST LISTEN_PORT POST_PORT TOKENS_FILE LISTENERS POSTERS\n");
        return 2;
    }
    host = argv[1];
    listen_port = atoi(argv[2]);
    post_port = atoi(argv[3]);
    listener_count = atoi(argv[5]);
    poster_count = atoi(argv[6]);
    FILE *file = fopen(argv[4], "r");
    if (!file) fail("tokens file");
    tokens = calloc((size_t)(listener_count + poster_count), sizeof *tokens);
    char line[256];
    for (int i = 0; i < listener_count + poster_count; i++) {
        if (!fgets(line, sizeof line, file)) {
            fprintf(stderr, "the tokens file has too few lines\n");
            return 1;
        }
        line[strcspn(line, "\r\n")] = 0;
        tokens[i] = strdup(line);
    }
    seen_count = calloc(MAX_IDS, sizeof *seen_count);
    last_seen = calloc(MAX_IDS, sizeof *last_seen);
    epoll_fd = epoll_create1(0);
    post_epoll_fd = epoll_create1(0);
    if (epoll_fd < 0 || post_epoll_fd < 0) fail("epoll_create1");

    for (int i = 0; i < listener_count; i++) {
        int fd = open_socket(listen_port);
        char request[1024];
        int length = snprintf(request, sizeof request,
                              "GET /api/v1/chat/live HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                              "Authorization: Bearer %s\r\n\r\n",
                              host, listen_port, tokens[i]);
        send_all(fd, request, (size_t)length);
        add(fd, 0);
        if (i % 50 == 49) wait_for_events(epoll_fd, 0);
    }
    double deadline = now() + 120;
    while (connected_listeners < listener_count && now() < deadline) wait_for_events(epoll_fd, 0.1);
    if (connected_listeners < listener_count) {
        fprintf(stderr, "only %d of %d listeners connected\n", connected_listeners, listener_count);
        return 1;
    }
    for (int i = 0; i < POST_CONNECTIONS; i++) posts[i] = add(open_socket(post_port), 1);
    pthread_t reader;
    if (pthread_create(&reader, NULL, read_listeners, NULL) != 0) fail("pthread_create");
    drain(2);

    /* Delivery: 200 messages, 20 a second. */
    post_phase(0, DELIVERY_MESSAGES, 20);
    drain(3);

    /* Sustained: 100 messages a second for 10 seconds. */
    double elapsed = post_phase(DELIVERY_MESSAGES, SUSTAINED_MESSAGES, 100);
    drain(3);
    atomic_store(&stopping, 1);
    pthread_join(reader, NULL);

    double delivery[DELIVERY_MESSAGES];
    int delivered = 0;
    double slowest = 0;
    for (int i = 0; i < DELIVERY_MESSAGES; i++) {
        long id = message_id[i];
        if (id <= 0 || id >= MAX_IDS || seen_count[id] == 0) continue;
        double ms = (last_seen[id] - answered_at[i]) * 1000;
        delivery[delivered++] = ms > 0 ? ms : 0;
        if (ms > slowest) slowest = ms;
    }
    int delivery_complete = reached_everyone(0, DELIVERY_MESSAGES);
    double delivery_p50 = percentile(delivery, delivered, 50), delivery_p99 = percentile(delivery, delivered, 99);

    int sustained_complete = reached_everyone(DELIVERY_MESSAGES, SUSTAINED_MESSAGES);
    double *sustained = post_ms + DELIVERY_MESSAGES;
    double post_p50 = percentile(sustained, SUSTAINED_MESSAGES, 50), post_p99 = percentile(sustained, SUSTAINED_MESSAGES, 99);

    printf("{\"listeners\": %d, \"delivery_ms\": {\"p50\": %.1f, \"p99\": %.1f, \"max\": %.1f, \"messages\": %d, "
           "\"reached_every_listener\": %d}, \"sustained\": {\"messages\": %d, \"seconds\": %.1f, \"per_second\": %.1f, "
           "\"post_p50_ms\": %.1f, \"post_p99_ms\": %.1f, \"reached_every_listener\": %d}, \"failed_posts\": %d, "
           "\"closed_listeners\": %d}\n",
           listener_count, delivery_p50, delivery_p99, slowest, DELIVERY_MESSAGES, delivery_complete, SUSTAINED_MESSAGES, elapsed,
           SUSTAINED_MESSAGES / elapsed, post_p50, post_p99, sustained_complete, failed_posts, closed_listeners);
    return failed_posts > 0 || closed_listeners > 0;
}
