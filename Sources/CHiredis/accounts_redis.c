#include "accounts_redis.h"

#include <accounts_lazy_library.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static struct {
  redisContext *(*connect_tcp)(const char *ip, int port, const struct timeval tv);
  redisContext *(*connect_unix)(const char *path, const struct timeval tv);
  int (*set_timeout)(redisContext *context, const struct timeval tv);
  int (*append_argv)(redisContext *context, int count, const char **arguments, const size_t *lengths);
  int (*buffer_write)(redisContext *context, int *done);
  int (*buffer_read)(redisContext *context);
  int (*reply_from_reader)(redisContext *context, void **reply);
  void (*free_reply)(void *reply);
  void (*free_context)(redisContext *context);
} redis;

#define STRINGIFY(x) #x
#define SONAME(x) "libhiredis.so." STRINGIFY(x)

static const struct accounts_lazy_symbol symbols[] = {
    {"redisConnectWithTimeout", (void **)&redis.connect_tcp},
    {"redisConnectUnixWithTimeout", (void **)&redis.connect_unix},
    {"redisSetTimeout", (void **)&redis.set_timeout},
    {"redisAppendCommandArgv", (void **)&redis.append_argv},
    {"redisBufferWrite", (void **)&redis.buffer_write},
    {"redisBufferRead", (void **)&redis.buffer_read},
    {"redisGetReplyFromReader", (void **)&redis.reply_from_reader},
    {"freeReplyObject", (void **)&redis.free_reply},
    {"redisFree", (void **)&redis.free_context},
    {NULL, NULL},
};

static struct accounts_lazy_library library = ACCOUNTS_LAZY_LIBRARY(
    SONAME(HIREDIS_SONAME), "the hiredis library, Debian libhiredis" STRINGIFY(HIREDIS_SONAME), symbols, NULL);

const char *accounts_redis_load(void) { return accounts_lazy_load(&library); }

static struct timeval interval(long milliseconds) {
  struct timeval tv = {milliseconds / 1000, (milliseconds % 1000) * 1000};
  return tv;
}

/* Every reply is waited for at most timeout_ms; and the socket is close-on-exec, as every
 * descriptor accounts opens: hiredis makes it without, and `accounts lease` execs its command
 * (and starts its lease keeper) with the connection open, which handed them a connection
 * logged in with the store's password. */
static redisContext *prepared(redisContext *context, long timeout_ms) {
  if (context != NULL && context->err == 0) {
    redis.set_timeout(context, interval(timeout_ms));
    fcntl(context->fd, F_SETFD, fcntl(context->fd, F_GETFD) | FD_CLOEXEC);
  }
  return context;
}

redisContext *accounts_redis_connect_tcp(const char *host, int port, long timeout_ms) {
  return prepared(redis.connect_tcp(host, port, interval(timeout_ms)), timeout_ms);
}

redisContext *accounts_redis_connect_unix(const char *path, long timeout_ms) {
  return prepared(redis.connect_unix(path, interval(timeout_ms)), timeout_ms);
}

const char *accounts_redis_error(const redisContext *context) {
  return context->err == 0 ? NULL : context->errstr;
}

int accounts_redis_closed(const redisContext *context) {
  if (context->err != 0) return 1;
  struct pollfd watched = {.fd = context->fd, .events = POLLIN};
  return poll(&watched, 1, 0) != 0;
}

static long long monotonic_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void *failed(redisContext *context, const char *why) {
  context->err = REDIS_ERR_IO;
  snprintf(context->errstr, sizeof context->errstr, "%s", why);
  return NULL;
}

/* redisCommandArgv bounds each read by the socket's timeout, not the reply: a server sending
 * a byte now and then held the command for as long as it liked. Here the whole exchange must
 * end by the deadline. */
redisReply *accounts_redis_command(redisContext *context, int count, const char **arguments, const size_t *lengths,
                                   long timeout_ms) {
  if (context->err != 0 || redis.append_argv(context, count, arguments, lengths) != REDIS_OK) return NULL;
  long long deadline = monotonic_ms() + timeout_ms;
  for (int done = 0; !done;) {
    if (redis.buffer_write(context, &done) != REDIS_OK) return NULL;
    if (!done && monotonic_ms() >= deadline) return failed(context, "no reply within the timeout");
  }
  for (;;) {
    void *reply = NULL;
    if (redis.reply_from_reader(context, &reply) != REDIS_OK) return NULL;
    if (reply != NULL) return reply;
    long long left = deadline - monotonic_ms();
    if (left <= 0) return failed(context, "no reply within the timeout");
    struct pollfd watched = {.fd = context->fd, .events = POLLIN};
    int ready = poll(&watched, 1, left > 1000000000 ? 1000000000 : (int)left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return failed(context, strerror(errno));
    if (ready > 0 && redis.buffer_read(context) != REDIS_OK) return NULL;
  }
}

void accounts_redis_free_reply(redisReply *reply) { redis.free_reply(reply); }

void accounts_redis_free(redisContext *context) { redis.free_context(context); }
