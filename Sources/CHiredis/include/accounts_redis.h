/*
 * hiredis for the shared lease store, loaded with dlopen the first time a command
 * uses a Redis store: nothing else needs it, and every command would otherwise pay for loading
 * it. The header is only for types and constants; the library loaded is the one these headers
 * describe (HIREDIS_SONAME).
 *
 * Also the entry points Swift cannot call as they are: redisCommand is variadic (only the
 * argv form is wrapped), and the context's error text is a fixed array.
 */
#ifndef ACCOUNTS_REDIS_H
#define ACCOUNTS_REDIS_H

#include <hiredis/hiredis.h>
#include <stddef.h>

/** Loads hiredis once per process. NULL when ready, else why not (a static string). Call it
 *  before any other function here. */
const char *accounts_redis_load(void);

/** A connection to HOST:PORT (or, with `path`, to a unix socket), given up after `timeout_ms`
 *  milliseconds; every later reply is waited for at most as long. NULL only when out of
 *  memory; else check accounts_redis_error. */
redisContext *accounts_redis_connect_tcp(const char *host, int port, long timeout_ms);
redisContext *accounts_redis_connect_unix(const char *path, long timeout_ms);

/** The context's error text, or NULL when it has none. */
const char *accounts_redis_error(const redisContext *context);

/** Whether the context's error is a reply refused: one no Redis sends, or over the limits
 *  below (the error text says which). */
int accounts_redis_refused(const redisContext *context);

/** Whether the context's error is a reply not whole within the command's timeout. */
int accounts_redis_late(const redisContext *context);

/** The limits of one reply, checked on each length header before what it announces is read
 *  or allocated: the largest reply of the lease store is a few KB per account. */
#define ACCOUNTS_REDIS_LONGEST_REPLY ((size_t)16 * 1024 * 1024)
#define ACCOUNTS_REDIS_LONGEST_REPLY_TEXT "16 MiB"
#define ACCOUNTS_REDIS_MOST_ELEMENTS 131072ULL
#define ACCOUNTS_REDIS_MOST_ELEMENTS_TEXT "131072"

/** One command, its arguments given with their lengths (binary-safe), its whole reply
 *  waited for at most `timeout_ms` milliseconds and within the limits above. NULL when the
 *  connection failed, the reply did not come in time or was refused (see accounts_redis_error
 *  and accounts_redis_refused; the connection is then of no more use); else a reply to free. */
redisReply *accounts_redis_command(redisContext *context, int count, const char **arguments, const size_t *lengths,
                                   long timeout_ms);

/** Whether a connection between commands is of no more use: the server closed it (its
 *  `timeout` closes idle clients), it failed, or it holds bytes nobody asked for. 0 when it
 *  looks open (a connection dropped on the way without a word looks open). */
int accounts_redis_closed(const redisContext *context);

void accounts_redis_free_reply(redisReply *reply);
void accounts_redis_free(redisContext *context);

#endif
