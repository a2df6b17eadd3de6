"""What the report tests share: check groups counted into the one line
tests/run-all.sh reads ("NAME: N passed, M failed"), and running
graveyard with its stderr kept for the message."""
import os
import subprocess


class Suite:
    def __init__(self, name, show=8):
        self.name, self.show = name, show
        self.passed = self.failed = 0

    def check(self, what, problems, detail=""):
        """One check group: problems is a list of strings (empty: passed)."""
        if not problems:
            self.passed += 1
            print(f"ok   {self.name} {what}{': ' + detail if detail else ''}")
            return
        self.failed += 1
        print(f"FAIL {self.name} {what}: {len(problems)} wrong")
        for p in problems[:self.show]:
            print(f"       {p}")
        if len(problems) > self.show:
            print(f"       ... and {len(problems) - self.show} more")

    def fail(self, message):
        self.failed += 1
        print(f"FAIL {self.name}: {message}")

    def unavailable(self, why):
        """A tool the suite needs is missing: skipped, saying why, except
        under CI (scripts/deps.sh installs it there), where it fails."""
        if os.environ.get("CI"):
            self.fail(why)
        else:
            print(f"{self.name}: skipped: {why}")
        return self.end()

    def end(self):
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}\n"
                           f"{p.stderr.strip()}")
    return p.stdout
