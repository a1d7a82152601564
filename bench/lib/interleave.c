/* interleave RUNS WARMUP SPEC: times commands round-robin, so that drift of a shared machine
 * (another build, a daemon's cache) falls on every command alike instead of on whichever ran
 * last. SPEC has one line per command: NAME TAB PREPARE TAB COMMAND, where PREPARE and COMMAND
 * are argv words joined by \x1f (PREPARE may be empty: nothing to prepare). Each round runs
 * every command once, in order, each after its PREPARE (untimed). Prints one line per command:
 * NAME and its RUNS wall times in milliseconds. A command that fails ends the run (exit 1):
 * a benchmark of a failing command measures nothing.
 *
 * Build: cc -O2 -o interleave interleave.c */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

extern char **environ;

enum { MAX_COMMANDS = 32, MAX_WORDS = 64 };

struct command {
  char *name;
  char *prepare[MAX_WORDS];
  char *argv[MAX_WORDS];
  double *times;
};

static void split(char *text, char **words) {
  int count = 0;
  if (*text) {
    for (char *word = strtok(text, "\x1f"); word && count < MAX_WORDS - 1; word = strtok(NULL, "\x1f"))
      words[count++] = word;
  }
  words[count] = NULL;
}

/* Runs argv with stdin, stdout and stderr on /dev/null; its wall time in ms, or -1 on failure. */
static double run(char **argv, const char *name) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int fd = 0; fd <= 2; fd++)
    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
  struct timespec start, end;
  pid_t pid;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int failed = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (failed) {
    fprintf(stderr, "interleave: %s: cannot run %s\n", name, argv[0]);
    return -1;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0) {}
  clock_gettime(CLOCK_MONOTONIC, &end);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "interleave: %s: %s failed (status %d)\n", name, argv[0], status);
    return -1;
  }
  return (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: interleave RUNS WARMUP SPEC\n");
    return 2;
  }
  int runs = atoi(argv[1]), warmup = atoi(argv[2]);
  FILE *spec = fopen(argv[3], "r");
  if (!spec || runs < 1 || warmup < 0) {
    fprintf(stderr, "interleave: bad arguments\n");
    return 2;
  }
  struct command commands[MAX_COMMANDS];
  int count = 0;
  char *line = NULL;
  size_t size = 0;
  while (getline(&line, &size, spec) > 0 && count < MAX_COMMANDS) {
    line[strcspn(line, "\n")] = 0;
    char *prepare = strchr(line, '\t');
    char *command = prepare ? strchr(prepare + 1, '\t') : NULL;
    if (!command) continue;
    *prepare++ = 0;
    *command++ = 0;
    struct command *c = &commands[count++];
    c->name = strdup(line);
    split(strdup(prepare), c->prepare);
    split(strdup(command), c->argv);
    c->times = calloc(runs, sizeof(double));
  }
  for (int round = 0; round < warmup + runs; round++) {
    for (int i = 0; i < count; i++) {
      struct command *c = &commands[i];
      if (c->prepare[0] && run(c->prepare, c->name) < 0) return 1;
      double ms = run(c->argv, c->name);
      if (ms < 0) return 1;
      if (round >= warmup) c->times[round - warmup] = ms;
    }
  }
  for (int i = 0; i < count; i++) {
    printf("%s", commands[i].name);
    for (int r = 0; r < runs; r++) printf(" %.4f", commands[i].times[r]);
    printf("\n");
  }
  return 0;
}
