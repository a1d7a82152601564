import Testing

/// The lint itself, on the shapes it must catch and the ones it must leave alone.
@Suite struct EarlyReaderTests {
  private func readers(_ script: String) -> [String] { EarlyReader.find(in: script).map(\.stage) }

  @Test(arguments: [
    "path=$(ldconfig -p | awk -v name=\"$1\" '$1 == name && /x86-64|AArch64|64bit/ { print $NF; exit }')",
    "accounts completion bash | head -3",
    "if ! dpkg-query -W \"$p\" 2>/dev/null | grep -q 'install ok installed'; then :; fi",
    "x=$(cmd |\n  grep -qE 'a|b')",
    "cmd | grep -m1 x",
    "cmd | grep --max-count=1 x",
    "cmd | grep -l x",
    "cmd | grep x >/dev/null",
    "cmd | grep x &>/dev/null",
    "cmd | sed 1q",
    "cmd | sed -n '/x/{p;q}'",
    "cmd | sed -e 's/a/b/' -e '$q'",
    "cmd | read -r first",
    "cmd | LC_ALL=C head -c4",
    "cmd | env LC_ALL=C head -n1",
    "cmd | while read -r x; do [ \"$x\" = y ] && break; done",
    "echo \"$(cmd | head -1)\"",
    "cat <<EOF\nsize: $(du -sk . | head -1)\nEOF",
    "(cd /tmp && cmd | head -3)",
    "(cmd; cmd) | head -3",
    "cmd | tee log | head",
    "step() {\n  eval \"$*\"\n}\nstep \"accounts completion bash | head -3\"",
    "eval 'cmd | head -1'",
    "cmd | awk '/x/ { nextfile }'",
  ])
  func catches(_ script: String) {
    #expect(readers(script).count == 1, "\(readers(script))")
  }

  @Test(arguments: [
    "ldconfig -p | awk '$1 == name && !found { print $NF; found = 1 }'",
    "awk '$1 == name { print $NF; exit }' <<<\"$cache\"",
    "cmd | tail -1",
    "cmd | sed -n 's/.*(NEEDED).*\\[\\(.*\\)\\]$/\\1/p' | tr : ' '",
    "cmd | sed 's/quit/q/g'",
    "cmd | grep -c x",
    "cmd | grep -e -q x",
    "cmd | grep -A1 x",
    "cmd | awk '{ n++ } END { print n; exit }'",
    "find . | while read -r file; do readelf -d \"$file\"; done | sort -u",
    "[[ $(dbus-send --print-reply x 2>/dev/null) == *'boolean true'* ]]",
    "a || head -1 file",
    "a | python3 -c 'import sys; print(sys.stdin.read())'",
    "label=${entry%%|*}",
    "echo 'a | head -1'",
    "cat <<'EOF'\n$(cmd | head -1)\nEOF",
    "cat <<EOF\nnot | head -1\nEOF",
    "# cmd | head -1",
    "case $x in\n  a | b) ;;\nesac",
    "packages=(a b)\nfor ((i = 0; i < 3; i++)); do echo \"$i\" | cat; done",
    "x=$((a | b)); head -1 file",
    "step() {\n  printf '%s' \"$*\"\n}\nstep \"cmd | head -3\"",
  ])
  func leavesAlone(_ script: String) {
    #expect(readers(script).isEmpty, "\(readers(script))")
  }

  @Test func namesTheLineOfTheReader() {
    let found = EarlyReader.find(in: "set -o pipefail\n\n# a comment\nx=$(a |\n  b |\n  head -1)\n")
    #expect(found == [EarlyReader(line: 6, stage: "head -1")])
  }
}
