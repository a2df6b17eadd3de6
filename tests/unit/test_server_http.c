/*
 * test_server_http.c - the libcurl-on-libuv client against a tiny HTTP
 * server on 127.0.0.1 in the same loop: a request completes with its
 * status and body, a refused connection reports an error, and freeing the
 * client from inside a done callback is safe (the runner does that when a
 * rung ends on a request's result); ASan checks the last. And a waiter
 * that turns the loop with UV_RUN_ONCE until its done callback ran (the
 * token counter's way) is not left asleep when the request ends inside
 * curl's timer on a kept-alive connection.
 *
 * Tests: orchestrator/server/http.c
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../orchestrator/base/cli.h"
#include "../../orchestrator/server/http.h"

static uv_tcp_t server;
static int port;

static const char response[] = "HTTP/1.1 200 OK\r\nContent-Type: "
                               "application/json\r\nContent-Length: "
                               "15\r\nConnection: close\r\n\r\n"
                               "{\"status\":\"ok\"}";

static void closed_cb(uv_handle_t *h)
{
    free(h);
}

static void written_cb(uv_write_t *w, int status)
{
    (void)status;
    uv_close((uv_handle_t *)w->handle, closed_cb);
    free(w);
}

static void alloc_cb(uv_handle_t *h, size_t n, uv_buf_t *buf)
{
    static char b[4096];

    (void)h;
    (void)n;
    *buf = uv_buf_init(b, sizeof(b));
}

static int has_blank_line(const char *p, size_t n)
{
    size_t i;

    for (i = 0; i + 4 <= n; i++)
        if (memcmp(p + i, "\r\n\r\n", 4) == 0)
            return 1;
    return 0;
}

/* Answer once the request's blank line has arrived. */
static void read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    if (n > 0 && has_blank_line(buf->base, (size_t)n)) {
        uv_write_t *w = malloc(sizeof(*w));
        uv_buf_t out = uv_buf_init((char *)response, sizeof(response) - 1);
        uv_read_stop(s);
        uv_write(w, s, &out, 1, written_cb);
    } else if (n < 0) {
        uv_close((uv_handle_t *)s, closed_cb);
    }
}

static void conn_cb(uv_stream_t *srv, int status)
{
    uv_tcp_t *c = malloc(sizeof(*c));

    assert_int_equal(status, 0);
    uv_tcp_init(srv->loop, c);
    assert_int_equal(uv_accept(srv, (uv_stream_t *)c), 0);
    uv_read_start((uv_stream_t *)c, alloc_cb, read_cb);
}

static void listen_on_loopback(uv_loop_t *loop)
{
    struct sockaddr_in a;
    int len = sizeof(a);

    uv_ip4_addr("127.0.0.1", 0, &a);
    uv_tcp_init(loop, &server);
    assert_int_equal(uv_tcp_bind(&server, (struct sockaddr *)&a, 0), 0);
    assert_int_equal(uv_listen((uv_stream_t *)&server, 8, conn_cb), 0);
    uv_tcp_getsockname(&server, (struct sockaddr *)&a, &len);
    port = ntohs(a.sin_port);
}

struct result {
    struct buf body;
    long status;
    char err[256];
    int done;
    struct http *free_me; /* http_free from inside the callback */
};

static int data_cb(void *ctx, long status, const char *p, size_t n)
{
    /* curl knows the status before the body */
    if (status != 200)
        return 1;
    buf_append(&((struct result *)ctx)->body, p, n);
    return 0;
}

static void done_cb(void *ctx, long status, const char *err)
{
    struct result *r = ctx;

    r->status = status;
    snprintf(r->err, sizeof(r->err), "%s", err ? err : "");
    r->done++;
    if (r->free_me)
        http_free(r->free_me, NULL, NULL);
    uv_close((uv_handle_t *)&server, NULL);
}

static void test_request_and_free_in_callback(void **state)
{
    uv_loop_t loop;
    struct http *h;
    struct result r = {{0}, 0, "", 0, NULL};
    char url[64], msg[512];

    (void)state;
    uv_loop_init(&loop);
    listen_on_loopback(&loop);
    h = http_new(&loop, msg, sizeof(msg));
    assert_non_null(h);
    r.free_me = h;
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/health", port);
    assert_non_null(
        http_request(h, url, NULL, 5000, data_cb, done_cb, &r));
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(r.done, 1);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.err, "");
    assert_int_equal(r.body.len, 15);
    assert_memory_equal(r.body.p, "{\"status\":\"ok\"}", 15);
    assert_int_equal(uv_loop_close(&loop), 0);
    buf_release(&r.body);
}

static void test_refused(void **state)
{
    uv_loop_t loop;
    struct http *h;
    struct result r = {{0}, 0, "", 0, NULL};
    char url[64], msg[512];

    (void)state;
    uv_loop_init(&loop);
    listen_on_loopback(&loop); /* find a free port, then close it */
    uv_close((uv_handle_t *)&server, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    h = http_new(&loop, msg, sizeof(msg));
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/health", port);
    assert_non_null(
        http_request(h, url, NULL, 5000, data_cb, done_cb, &r));
    r.free_me = h;
    /* done_cb closes the server handle: it is closed already, so open a
     * stand-in to close */
    uv_tcp_init(&loop, &server);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(r.done, 1);
    assert_int_equal(r.status, 0);
    assert_true(r.err[0] != '\0');
    assert_int_equal(uv_loop_close(&loop), 0);
    buf_release(&r.body);
}

/* A curl option libcurl refuses is an error that names it, never a
 * request sent without it: a URL over libcurl's 8,000,000-byte cap for
 * a string option (CURLE_BAD_FUNCTION_ARGUMENT) does not start. */
static void test_refused_option_named(void **state)
{
    uv_loop_t loop;
    struct http *h;
    struct result r = {{0}, 0, "", 0, NULL};
    size_t n = 8000001;
    char *url = malloc(n + 1), msg[512];

    (void)state;
    assert_non_null(url);
    memcpy(url, "http://127.0.0.1:1/", 19);
    memset(url + 19, 'a', n - 19);
    url[n] = '\0';
    uv_loop_init(&loop);
    h = http_new(&loop, msg, sizeof(msg));
    assert_non_null(h);
    assert_null(http_request(h, url, NULL, 5000, data_cb, done_cb, &r));
    assert_int_equal(r.done, 0);
    /* the option and the URL's start named */
    assert_non_null(strstr(http_error(h), "libcurl refused CURLOPT_URL for "
                                          "'http://127.0.0.1:1/aaa"));
    assert_non_null(strstr(http_error(h), "...': "));
    free(url);
    http_free(h, NULL, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* A keep-alive server in a child process, on its own core: it answers a
 * request the moment its last byte arrives, so that the reply is often
 * there before curl, still inside the socket action that sent the
 * request, first looks (libcurl 7.88 polls the socket once, 0 ms, right
 * after sending). */
static pid_t keepalive_pid = -1;

/* The length up to and with the first blank line, 0 when none. */
static size_t blank_line_end(const char *p, size_t n)
{
    size_t i;

    for (i = 0; i + 4 <= n; i++)
        if (memcmp(p + i, "\r\n\r\n", 4) == 0)
            return i + 4;
    return 0;
}

static void keepalive_serve(int c)
{
    static const char reply[] = "HTTP/1.1 200 OK\r\nContent-Type: "
                                "application/json\r\nContent-Length: "
                                "15\r\n\r\n{\"status\":\"ok\"}";
    char in[8192];
    size_t have = 0, used;
    ssize_t n;

    while ((n = read(c, in + have, sizeof(in) - have)) > 0) {
        have += (size_t)n;
        /* requests are GETs: a request ends at its blank line */
        while ((used = blank_line_end(in, have)) > 0) {
            if (write(c, reply, sizeof(reply) - 1) !=
                (ssize_t)(sizeof(reply) - 1))
                return;
            memmove(in, in + used, have - used);
            have -= used;
        }
        if (have == sizeof(in))
            return;
    }
}

static int keepalive_up(void **state)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    (void)state;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        listen(fd, 8) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    port = ntohs(a.sin_port);
    keepalive_pid = fork();
    if (keepalive_pid < 0)
        return -1;
    if (keepalive_pid == 0) {
        int c;
        alarm(60); /* never outlives a test that forgot it */
        while ((c = accept(fd, NULL, NULL)) >= 0) {
            keepalive_serve(c);
            close(c);
        }
        _exit(0);
    }
    close(fd);
    return 0;
}

static int keepalive_down(void **state)
{
    (void)state;
    if (keepalive_pid > 0) {
        kill(keepalive_pid, SIGKILL);
        (void)waitpid(keepalive_pid, NULL, 0);
    }
    keepalive_pid = -1;
    return 0;
}

struct waiter {
    int done, woken;
    long status;
};

static void waiter_done_cb(void *ctx, long status, const char *err)
{
    struct waiter *w = ctx;

    (void)err;
    w->status = status;
    w->done = 1;
}

static void watchdog_cb(uv_timer_t *t)
{
    ((struct waiter *)t->data)->woken = 1;
}

/*
 * Sequential requests on one kept-alive connection, each awaited as
 * tokenize_count awaits a count: uv_run(UV_RUN_ONCE) until the done
 * callback ran. A few milliseconds of work between two requests (JSON, a
 * haystack's fill) leave curl's 1 ms timer due when the loop next turns:
 * libuv 1.44 runs due timers before it polls, curl sends, finds the reply
 * there and ends the transfer inside that timer callback, and the loop
 * then polled with no timeout. A loop kept alive by another handle (there
 * the server's pipes; here a watchdog timer, 2 s) slept on with the count
 * done. Each wait must end well before the watchdog.
 */
static void test_keepalive_once_waits(void **state)
{
    uv_loop_t loop;
    uv_timer_t watchdog;
    struct http *h;
    struct waiter w;
    char url[64], msg[512];
    struct timespec work = {0, 2000000};
    int i;

    (void)state;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(uv_timer_init(&loop, &watchdog), 0);
    watchdog.data = &w;
    h = http_new(&loop, msg, sizeof(msg));
    assert_non_null(h);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/health", port);
    for (i = 0; i < 200; i++) {
        memset(&w, 0, sizeof(w));
        assert_int_equal(uv_timer_start(&watchdog, watchdog_cb, 2000, 0), 0);
        assert_non_null(
            http_request(h, url, NULL, 5000, NULL, waiter_done_cb, &w));
        nanosleep(&work, NULL); /* the work between two counts */
        while (!w.done && !w.woken)
            if (uv_run(&loop, UV_RUN_ONCE) == 0)
                break;
        if (w.woken) {
            fail_msg("request %d of 200: done %d, but uv_run(UV_RUN_ONCE) "
                     "slept until the 2 s watchdog",
                     i + 1, w.done);
        }
        assert_int_equal(w.done, 1);
        assert_int_equal(w.status, 200);
    }
    uv_close((uv_handle_t *)&watchdog, NULL);
    http_free(h, NULL, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_and_free_in_callback),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_refused_option_named),
        cmocka_unit_test_setup_teardown(test_keepalive_once_waits,
                                        keepalive_up, keepalive_down),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);

    http_global_cleanup(); /* what LeakSanitizer would otherwise see */
    return failed;
}
