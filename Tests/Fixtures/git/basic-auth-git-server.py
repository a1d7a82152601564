#!/usr/bin/env python3
"""A dumb-HTTP git server on 127.0.0.1 that demands basic auth, for the git-credential test.

Serves one bare repository, repo.git (made at start with one commit), to a client whose
Authorization is one of the USER:TOKEN lines of --credentials (read on every request, so the
test can write it after the tokens exist); anything else gets 401 with WWW-Authenticate. Every
Authorization seen is appended, decoded, to --log. Writes its URL to --url-file and stops by
itself after --lifetime seconds.
"""
import argparse, base64, http.server, os, subprocess, threading

parser = argparse.ArgumentParser()
parser.add_argument("--credentials", required=True)
parser.add_argument("--log", required=True)
parser.add_argument("--root", required=True, help="an empty directory for the repository")
parser.add_argument("--url-file", required=True, help="where to write the URL once serving")
parser.add_argument("--lifetime", type=int, default=120)
options = parser.parse_args()

root = options.root
work = os.path.join(root, "work")
bare = os.path.join(root, "repo.git")
git_environment = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", HOME=root,
                       GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example", GIT_COMMITTER_NAME="t",
                       GIT_COMMITTER_EMAIL="t@example")
def git(*arguments, cwd=root):
    subprocess.run(["git", *arguments], cwd=cwd, env=git_environment, check=True, timeout=30,
                   stdout=subprocess.DEVNULL)
git("init", "-q", "-b", "main", work)
with open(os.path.join(work, "README"), "w") as readme:
    readme.write("served behind basic auth\n")
git("add", "README", cwd=work)
git("commit", "-q", "-m", "first", cwd=work)
git("clone", "-q", "--bare", work, bare)
git("update-server-info", cwd=bare)

class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *arguments, **keywords):
        super().__init__(*arguments, directory=root, **keywords)

    def log_message(self, *arguments):
        pass

    def authorised(self):
        header = self.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return False
        try:
            pair = base64.b64decode(header[6:], validate=True).decode()
        except Exception:
            return False
        with open(options.log, "a") as log:
            log.write(pair + "\n")
        with open(options.credentials) as allowed:
            return pair in allowed.read().splitlines()

    def do_GET(self):
        if not self.path.startswith("/repo.git/"):
            self.send_error(404)
        elif not self.authorised():
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="test"')
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            super().do_GET()

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Timer(options.lifetime, lambda: os._exit(0)).start()
with open(options.url_file + ".part", "w") as url:
    url.write(f"http://127.0.0.1:{server.server_address[1]}/repo.git")
os.rename(options.url_file + ".part", options.url_file)
server.serve_forever()
