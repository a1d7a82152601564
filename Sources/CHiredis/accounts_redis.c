#include "accounts_redis.h"

#include <accounts_lazy_library.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static struct {
  redisContext *(*connect_tcp)(const char *ip, int port, const struct timeval tv);
  redisContext *(*connect_unix)(const char *path, const struct timeval tv);
  int (*set_timeout)(redisContext *context, const struct timeval tv);
  int (*append_argv)(redisContext *context, int count, const char **arguments, const size_t *lengths);
  int (*buffer_write)(redisContext *context, int *done);
  int (*reader_feed)(redisReader *reader, const char *bytes, size_t length);
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
    {"redisReaderFeed", (void **)&redis.reader_feed},
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

int accounts_redis_refused(const redisContext *context) { return context->err == REDIS_ERR_PROTOCOL; }

/* The error of a reply not whole by its deadline: none of hiredis's codes (0.14 has no
 * REDIS_ERR_TIMEOUT), so that it is told apart from a connection lost. */
#define LATE 100

int accounts_redis_late(const redisContext *context) { return context->err == LATE; }

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

static void *late(redisContext *context) {
  context->err = LATE;
  snprintf(context->errstr, sizeof context->errstr, "%s", "no reply within the timeout");
  return NULL;
}

static void *refused(redisContext *context, const char *why) {
  context->err = REDIS_ERR_PROTOCOL;
  snprintf(context->errstr, sizeof context->errstr, "%s", why);
  return NULL;
}

/* The longest line of a reply (a status or an error: Redis's longest are a Lua error with
 * its script's line, well under this). */
#define LONGEST_LINE 65536
/* Arrays nested deeper than hiredis 0.14 reads (its reader stops at 7 levels). */
#define DEEPEST 7

/* Where the framing of one reply has got to: the bytes framed so far, the array elements
 * announced so far, and the elements each open array still waits for. */
struct framing {
  size_t framed;
  unsigned long long elements;
  int depth;
  long long waiting[DEEPEST];
};

/* The number of a header line (`$N`, `*N`): -1 or more, at most 18 digits. */
static int header_number(const char *text, size_t length, long long *number) {
  if (length == 2 && text[0] == '-' && text[1] == '1') {
    *number = -1;
    return 1;
  }
  if (length == 0 || length > 18) return 0;
  long long value = 0;
  for (size_t index = 0; index < length; index++) {
    if (text[index] < '0' || text[index] > '9') return 0;
    value = value * 10 + (text[index] - '0');
  }
  *number = value;
  return 1;
}

/* Frames what has come of one reply in bytes[0..<length]: 1 once the reply is whole (it
 * ends at framing->framed), 0 while more must come, -1 when it is refused (why says why).
 * Every limit is checked on a header, before the bytes it announces come: a bulk string
 * or an array larger than the limits is refused as soon as its length is read, so neither
 * this buffer nor hiredis (which allocates an array's element pointers from its header)
 * ever holds more than the limits. */
static int frame(struct framing *framing, const char *bytes, size_t length, const char **why) {
  while (framing->framed < length) {
    const char *line = bytes + framing->framed;
    size_t available = length - framing->framed;
    const char *end = memchr(line, '\n', available < LONGEST_LINE + 2 ? available : LONGEST_LINE + 2);
    if (end == NULL) {
      if (available < LONGEST_LINE + 2) return 0;
      *why = "a line longer than 64 KiB";
      return -1;
    }
    if (end == line || end[-1] != '\r') {
      *why = "a line not ended by CRLF";
      return -1;
    }
    size_t text = (size_t)(end - line) - 1;  /* the line without its CRLF */
    size_t next = framing->framed + text + 2;
    if (next > ACCOUNTS_REDIS_LONGEST_REPLY) {
      *why = "a reply over " ACCOUNTS_REDIS_LONGEST_REPLY_TEXT;
      return -1;
    }
    long long number = 0;
    switch (text == 0 ? 0 : line[0]) {
    case '+':
    case '-':
    case ':':
      break;
    case '$':
      if (!header_number(line + 1, text - 1, &number)) {
        *why = "a malformed bulk string length";
        return -1;
      }
      if (number >= 0) {
        if ((unsigned long long)number + 2 > ACCOUNTS_REDIS_LONGEST_REPLY - next) {
          *why = "a reply over " ACCOUNTS_REDIS_LONGEST_REPLY_TEXT;
          return -1;
        }
        if (length - next < (size_t)number + 2) return 0;  /* its header is framed again then */
        if (bytes[next + number] != '\r' || bytes[next + number + 1] != '\n') {
          *why = "a bulk string not ended by CRLF";
          return -1;
        }
        next += (size_t)number + 2;
      }
      break;
    case '*':
      if (!header_number(line + 1, text - 1, &number)) {
        *why = "a malformed array length";
        return -1;
      }
      if (number > 0) {
        if ((unsigned long long)number > ACCOUNTS_REDIS_MOST_ELEMENTS - framing->elements) {
          *why = "a reply of over " ACCOUNTS_REDIS_MOST_ELEMENTS_TEXT " elements";
          return -1;
        }
        if (framing->depth == DEEPEST) {
          *why = "arrays nested too deep";
          return -1;
        }
        framing->elements += (unsigned long long)number;
        framing->waiting[framing->depth++] = number;
        framing->framed = next;
        continue;
      }
      break;
    default:
      *why = "a reply of no known type";
      return -1;
    }
    framing->framed = next;
    /* One element is whole, and with it each array it was the last element of. */
    for (;;) {
      if (framing->depth == 0) return 1;
      if (--framing->waiting[framing->depth - 1] > 0) break;
      framing->depth--;
    }
  }
  return 0;
}

/* The whole reply, read into a buffer of our own and framed there (frame) before hiredis's
 * reader sees any of it: hiredis 0.14 has no limit on a bulk string's length or an array's
 * element count (a server's `*2147483647` had it calloc 16 GiB of pointers, a streamed bulk
 * string grew its buffer to gigabytes). Read until the deadline at most. */
static redisReply *read_reply(redisContext *context, long long deadline) {
  struct framing framing = {0};
  char *buffer = NULL;
  size_t length = 0, capacity = 0;
  const char *why = NULL;
  int state;
  while ((state = frame(&framing, buffer, length, &why)) == 0) {
    long long left = deadline - monotonic_ms();
    if (left <= 0) {
      free(buffer);
      return late(context);
    }
    struct pollfd watched = {.fd = context->fd, .events = POLLIN};
    int ready = poll(&watched, 1, left > 1000000000 ? 1000000000 : (int)left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      free(buffer);
      return failed(context, strerror(errno));
    }
    if (ready == 0) continue;
    if (capacity - length < 16384) {
      /* Never past what frame lets through: a reply of the limit, a line, a read. */
      size_t wanted = capacity == 0 ? 65536 : capacity * 2;
      size_t most = ACCOUNTS_REDIS_LONGEST_REPLY + LONGEST_LINE + 2 * 16384;
      char *grown = realloc(buffer, wanted < most ? wanted : most);
      if (grown == NULL) {
        free(buffer);
        return failed(context, "out of memory");
      }
      buffer = grown;
      capacity = wanted < most ? wanted : most;
    }
    ssize_t got = read(context->fd, buffer + length, capacity - length > 16384 ? 16384 : capacity - length);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) {
      free(buffer);
      return failed(context, got == 0 ? "the server closed the connection" : strerror(errno));
    }
    length += (size_t)got;
  }
  if (state < 0) {
    free(buffer);
    return refused(context, why);
  }
  void *reply = NULL;
  if (redis.reader_feed(context->reader, buffer, framing.framed) != REDIS_OK ||
      redis.reply_from_reader(context, &reply) != REDIS_OK || reply == NULL) {
    free(buffer);
    return reply == NULL && context->err == 0 ? refused(context, "a reply hiredis could not read") : NULL;
  }
  /* Bytes after the reply were asked for by nobody: the connection is of no more use. */
  if (length > framing.framed) refused(context, "more than one reply to one command");
  free(buffer);
  return reply;
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
    if (!done && monotonic_ms() >= deadline) return late(context);
  }
  return read_reply(context, deadline);
}

void accounts_redis_free_reply(redisReply *reply) { redis.free_reply(reply); }

void accounts_redis_free(redisContext *context) { redis.free_context(context); }
