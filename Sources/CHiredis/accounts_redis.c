#include "accounts_redis.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/time.h>

static struct {
  redisContext *(*connect_tcp)(const char *ip, int port, const struct timeval tv);
  redisContext *(*connect_unix)(const char *path, const struct timeval tv);
  int (*set_timeout)(redisContext *context, const struct timeval tv);
  void *(*command_argv)(redisContext *context, int count, const char **arguments, const size_t *lengths);
  void (*free_reply)(void *reply);
  void (*free_context)(redisContext *context);
} redis;

#define STRINGIFY(x) #x
#define SONAME(x) "libhiredis.so." STRINGIFY(x)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error = "hiredis was not loaded";
static char load_error_text[512];

#define LOAD(field, symbol)                                                                    \
  if ((*(void **)&redis.field = dlsym(library, symbol)) == NULL) {                            \
    load_error = SONAME(HIREDIS_SONAME) " lacks " symbol;                                     \
    return;                                                                                    \
  }

static void load(void) {
  void *library = dlopen(SONAME(HIREDIS_SONAME), RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    snprintf(load_error_text, sizeof load_error_text, "%s (install the hiredis library, Debian libhiredis%s)",
             dlerror(), STRINGIFY(HIREDIS_SONAME));
    load_error = load_error_text;
    return;
  }
  LOAD(connect_tcp, "redisConnectWithTimeout")
  LOAD(connect_unix, "redisConnectUnixWithTimeout")
  LOAD(set_timeout, "redisSetTimeout")
  LOAD(command_argv, "redisCommandArgv")
  LOAD(free_reply, "freeReplyObject")
  LOAD(free_context, "redisFree")
  load_error = NULL;
}

const char *accounts_redis_load(void) {
  pthread_once(&once, load);
  return load_error;
}

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

redisReply *accounts_redis_command(redisContext *context, int count, const char **arguments, const size_t *lengths) {
  return redis.command_argv(context, count, arguments, lengths);
}

void accounts_redis_free_reply(redisReply *reply) { redis.free_reply(reply); }

void accounts_redis_free(redisContext *context) { redis.free_context(context); }
