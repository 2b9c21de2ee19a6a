/*
 * hookd's Claude Code shim: one hook event from Claude Code to hookd's HTTP hook endpoint.
 *
 * Claude Code runs a command for the events that take no HTTP hook. This is that command,
 * compiled at `hookd bridge install` so an event costs an exec and one loopback request,
 * not a Python start. It forwards stdin (the hook input) as the request body, the agent's
 * environment (all of it, as Claude Code gives it to a hook) as X-Hookd-Env-NAME headers, and
 * prints the answer's body (Claude Code's hook output) with exit status 0; or, where hookd denies an
 * event Claude Code blocks only by exit code 2, the reason on stderr with exit status 2.
 *
 * When hookd is not running (nothing listens, or it does not answer in time), the agent proceeds
 * and one line on stderr says why; with --fail-closed a tool call (PreToolUse, Gemini CLI's BeforeTool) is
 * denied instead. When hookd
 * is running but its answer cannot be used (not 2xx, not HTTP, cut short, not a JSON object), an
 * event that decides is denied in the agent's own format, naming why: the agent would otherwise go
 * on as if the guards had allowed it. Those denies are made at build time from the agent's mapping
 * (shim_denies.h, written by hookd/agents/shim/__init__.py), so they are exactly what hookd would answer.
 *
 * usage: claude-shim EVENT PORT TOKEN_FILE [--fail-closed] [--timeout SECONDS] [--agent NAME] [--events LIST]
 *
 * --agent names the endpoint's agent (default claude-code): Codex's and Gemini CLI's hooks, which have
 * no HTTP type, run this shim with --agent codex or --agent gemini and are answered in that agent's format;
 * its denies (here and under --fail-closed) are the agent's too.
 *
 * --events LIST names the events installed with it (sent as ?events=LIST), so that hookd can tell
 * a session that read older settings which hooks it cannot run.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* One deny per agent and deciding event: the agent's output JSON with \001 where the reason goes, or
 * (exit2) the reason alone on stderr with exit status 2, for events the agent blocks only that way. */
struct deny {
    const char *agent, *event;
    int exit2;
    const char *json;
};
/* One row per agent and event that --fail-closed denies when hookd cannot be asked (its tool calls):
 * the agent's output JSON with \001 where the reason goes, from the agent's own mapping. */
struct closed {
    const char *agent, *event, *json;
};
#include "shim_denies.h"

#define MAX_ENV_BYTES 32768 /* the daemon reads a request head of up to 64 KiB */
#define MAX_RESPONSE (64L << 20)


static const char *event = "";
static const char *agent = "claude-code";
static int fail_closed = 0;
static double deadline_at = 0;

struct buf {
    char *data;
    size_t len, cap;
};

static void need(struct buf *b, size_t more) {
    if (b->len + more + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more + 1) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        fputs("hookd shim: out of memory\n", stderr);
        exit(1);
    }
    b->data = p;
    b->cap = cap;
}

static void add(struct buf *b, const char *s, size_t n) {
    need(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

static void addf(struct buf *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int remaining_ms(void) {
    double left = deadline_at - now();
    if (left <= 0) return 0;
    return left > 2e6 ? 2000000000 : (int)(left * 1000) + 1;
}

/* The text as a JSON string's contents: quotes, backslashes and control characters escaped; with
 * ``ascii``, any byte outside ASCII (a garbled answer's) replaced, so the output is always valid JSON. */
static void put_json(const char *s, int ascii) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p < 0x80 || !ascii ? *p : '?');
    }
}

/* The reason inside a single-quoted shell word, as a JSON string's contents: each quote closes the word,
 * is escaped and reopens it, so no byte of the reason is ever read as shell syntax. For agents whose deny
 * is a command that prints the reason (Cline's overrideInput), where the table has \002. */
static void put_shell_json(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\'') fputs("'\\\\''", stdout);
        else if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f) putchar(' ');
        else putchar(*p < 0x80 ? *p : '?');
    }
}

/* ``json`` (an agent's output) with the reason where \001 marks it (\002: inside a shell command). */
static void put_with_reason(const char *json, const char *reason, int ascii) {
    for (const char *p = json; *p; p++) {
        if (*p == '\001') put_json(reason, ascii);
        else if (*p == '\002') put_shell_json(reason);
        else putchar(*p);
    }
    putchar('\n');
}

static const struct closed *closed_for(void) {
    for (size_t i = 0; i < sizeof closed / sizeof closed[0]; i++)
        if (strcmp(closed[i].agent, agent) == 0 && strcmp(closed[i].event, event) == 0) return &closed[i];
    return NULL;
}

/* hookd did not answer: the agent proceeds, or under --fail-closed a tool call is denied. */
static int unavailable(const char *why) {
    const struct closed *c = fail_closed ? closed_for() : NULL;
    fprintf(stderr, "hookd shim: %s; %s\n", why, c ? "denying the tool call (--fail-closed)" : "the agent proceeds");
    if (c) {
        char reason[1200];
        snprintf(reason, sizeof reason, "hookd could not be asked (%s); the hookd shim runs with --fail-closed", why);
        put_with_reason(c->json, reason, 0);
    }
    return 0;
}

static const struct deny *deny_for(void) {
    for (size_t i = 0; i < sizeof denies / sizeof denies[0]; i++)
        if (strcmp(denies[i].agent, agent) == 0 && strcmp(denies[i].event, event) == 0) return &denies[i];
    return NULL;
}

/* hookd is running but its answer cannot be used: an event that decides is denied (its guards did not
 * answer), any other proceeds as when hookd is down. */
static int cannot_handle(const char *why) {
    const struct deny *d = deny_for();
    if (!d) return unavailable(why);
    char reason[1200];
    snprintf(reason, sizeof reason, "hookd: %s; hookd is running but its answer cannot be used, so %s is denied", why, event);
    for (char *p = reason; *p; p++)
        if ((unsigned char)*p >= 0x80 || (unsigned char)*p < 0x20) *p = '?';
    fprintf(stderr, "hookd shim: %s; denying %s\n", why, event);
    if (d->exit2) {
        fprintf(stderr, "%s\n", reason);
        return 2;
    }
    put_with_reason(d->json, reason, 1);
    return fflush(stdout) == 0 ? 0 : 1;
}

/* Whether a 2xx body is an answer the agent can read: nothing, or one JSON object. */
static int readable(const char *p, size_t n) {
    while (n && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++, n--;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == '\t')) n--;
    return n == 0 || (p[0] == '{' && p[n - 1] == '}');
}

static int read_all(int fd, struct buf *b, long limit) {
    for (;;) {
        need(b, 65536);
        ssize_t n = read(fd, b->data + b->len, 65536);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) return 0;
        b->len += (size_t)n;
        b->data[b->len] = 0;
        if (limit > 0 && (long)b->len > limit) return -1;
    }
}

static int read_token(const char *path, char *out, size_t size) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_uid != getuid() || (st.st_mode & 077)) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    ssize_t n = read(fd, out, size - 1);
    close(fd);
    if (n <= 0) return -1;
    out[n] = 0;
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == ' ')) out[--n] = 0;
    return n > 0 ? 0 : -1;
}

/* A value goes in a header only if it holds no control character (a header cannot carry one). */
static int header_safe(const char *v) {
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if ((*p < 0x20 && *p != '\t') || *p == 0x7f) return 0;
    return 1;
}

/* Every variable Claude Code gave the hook, as a direct hook would see it (a notification hook's
 * webhook URL or API token included): hookd keeps them in the daemon, for the hooks that came from
 * Claude Code, and never puts them in the journal. Only hookd's own secret is not sent back. */
static int forwarded(const char *name, size_t len) {
    if (len == 18 && strncmp(name, "HOOKD_BRIDGE_TOKEN", 18) == 0) return 0;
    if (len > 255) return 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || (i > 0 && c >= '0' && c <= '9');
        if (!ok) return 0;
    }
    return 1;
}

static void add_env(struct buf *head) {
    size_t used = 0;
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || eq == *e) continue;
        size_t nlen = (size_t)(eq - *e);
        const char *value = eq + 1;
        if (!*value || !forwarded(*e, nlen) || !header_safe(value)) continue;
        size_t cost = nlen + strlen(value) + 20;
        if (used + cost > MAX_ENV_BYTES) continue;
        used += cost;
        add(head, "X-Hookd-Env-", 12);
        add(head, *e, nlen);
        add(head, ": ", 2);
        add(head, value, strlen(value));
        add(head, "\r\n", 2);
    }
}

static int send_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        struct pollfd pfd = {fd, POLLOUT, 0};
        int ms = remaining_ms();
        if (ms == 0) return -2;
        int r = poll(&pfd, 1, ms);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return r == 0 ? -2 : -1;
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (w < 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int recv_all(int fd, struct buf *b) {
    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int ms = remaining_ms();
        if (ms == 0) return -2;
        int r = poll(&pfd, 1, ms);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return r == 0 ? -2 : -1;
        need(b, 65536);
        ssize_t n = recv(fd, b->data + b->len, 65536, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n < 0) return -1;
        if (n == 0) return 0;
        b->len += (size_t)n;
        b->data[b->len] = 0;
        if ((long)b->len > MAX_RESPONSE) return -1;
    }
}

int main(int argc, char **argv) {
    double timeout = 600;
    const char *events = NULL;
    if (argc < 4) {
        fputs("usage: claude-shim EVENT PORT TOKEN_FILE [--fail-closed] [--timeout SECONDS] [--agent NAME] [--events LIST]\n", stderr);
        return 2;
    }
    event = argv[1];
    long port = strtol(argv[2], NULL, 10);
    const char *token_file = argv[3];
    for (int i = 4; i < argc; i++) {
        if (strcmp(argv[i], "--fail-closed") == 0) fail_closed = 1;
        else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) timeout = strtod(argv[++i], NULL);
        else if (strcmp(argv[i], "--agent") == 0 && i + 1 < argc) agent = argv[++i];
        else if (strcmp(argv[i], "--events") == 0 && i + 1 < argc) events = argv[++i];
    }
    if (strspn(agent, "abcdefghijklmnopqrstuvwxyz-") != strlen(agent) || !*agent || strlen(agent) > 32) {
        fputs("claude-shim: --agent takes a lower-case name\n", stderr);
        return 2;
    }
    /* Event names are letters, so a list of anything else is not put in the request line. */
    if (events && (strlen(events) > 2000 || strspn(events, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz,") != strlen(events)))
        events = NULL;
    if (timeout <= 0) timeout = 600;
    deadline_at = now() + timeout;
    signal(SIGPIPE, SIG_IGN);

    struct buf body = {0};
    if (read_all(0, &body, 0) != 0) return unavailable("cannot read the hook input on stdin");
    char token[512];
    if (read_token(token_file, token, sizeof token) != 0) {
        char why[1024];
        snprintf(why, sizeof why, "cannot read the secret in %s: %s", token_file, strerror(errno));
        return unavailable(why);
    }
    if (port <= 0 || port > 65535) return unavailable("no valid port given");

    struct buf head = {0};
    addf(&head, "POST /%s/%s", agent, event);
    if (events) {
        add(&head, "?events=", 8);
        add(&head, events, strlen(events));
    }
    addf(&head, " HTTP/1.1\r\nHost: 127.0.0.1:%ld\r\n", port);
    addf(&head, "Content-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n", body.len);
    /* This caller can exit 2: where Claude Code blocks an event only that way, hookd answers so. */
    add(&head, "X-Hookd-Exits: 2\r\n", 18);
    /* What is left of this shim's own deadline: hookd ends every wait of the call before it, so a
       fail-closed guard's deny arrives before the shim gives up. */
    double left = deadline_at - now();
    if (left > 0) addf(&head, "X-Hookd-Timeout: %.3f\r\n", left);
    add(&head, "Authorization: Bearer ", 22);
    add(&head, token, strlen(token));
    add(&head, "\r\n", 2);
    add_env(&head);
    add(&head, "\r\n", 2);

    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return unavailable("cannot make a socket");
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((unsigned short)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        char why[256];
        snprintf(why, sizeof why, "hookd is not answering on 127.0.0.1:%ld (%s)", port, strerror(errno));
        return unavailable(why);
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int sent = send_all(fd, head.data, head.len);
    if (sent == 0 && body.len) sent = send_all(fd, body.data, body.len);
    struct buf resp = {0};
    /* Even when sending failed (hookd answered early and closed), its answer may be there to read. */
    int got = sent == -2 ? -2 : recv_all(fd, &resp);
    close(fd);
    if (got == -2) {
        char why[128];
        snprintf(why, sizeof why, "hookd did not answer %s within %g s", event, timeout);
        return unavailable(why);
    }
    /* From here hookd (or whatever holds its port) is running and took the connection: an answer
     * that cannot be used is not "hookd is down", and a deciding event is not let through on it. */
    if (resp.len == 0)
        return cannot_handle(sent != 0 ? "hookd closed the connection before it read the hook input"
                                        : "hookd closed the connection without answering");

    int status = 0;
    if (resp.len < 12 || sscanf(resp.data, "HTTP/1.%*c %d", &status) != 1) return cannot_handle("hookd's answer is not HTTP");
    char *sep = strstr(resp.data, "\r\n\r\n");
    if (!sep) return cannot_handle("hookd's answer was cut short");
    char *payload = sep + 4;
    size_t plen = resp.len - (size_t)(payload - resp.data);
    if (status < 200 || status > 299) {
        char why[600];
        snprintf(why, sizeof why, "hookd refused %s (HTTP %d: %.*s)", event, status, (int)(plen > 400 ? 400 : plen), payload);
        return cannot_handle(why);
    }
    *sep = 0;
    const char *length = strcasestr(resp.data, "\r\ncontent-length:");
    if (length && strtoul(length + 17, NULL, 10) != plen) return cannot_handle("hookd's answer was cut short");
    /* A deny on an event Claude Code blocks only by exit code 2 (TeammateIdle, TaskCompleted): the body
     * is the feedback Claude Code reads on stderr. */
    int exit2 = strcasestr(resp.data, "\r\nx-hookd-exit: 2") != NULL;
    if (!exit2 && !readable(payload, plen)) return cannot_handle("hookd's answer is not a JSON object");
    if (exit2) {
        if (plen) fwrite(payload, 1, plen, stderr);
        fputc('\n', stderr);
        return 2;
    }
    if (plen && fwrite(payload, 1, plen, stdout) != plen) return 1;
    if (plen) fputc('\n', stdout);
    return fflush(stdout) == 0 ? 0 : 1;
}
