"""Runs one browser scenario: `python3 run.py NAME` with NB_BINARY set to the built nb. Exit 0 when it passed."""

import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import Repository, browser  # noqa: E402
from scenarios import SCENARIOS  # noqa: E402


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in SCENARIOS:
        print(f"usage: run.py {'|'.join(SCENARIOS)}", file=sys.stderr)
        return 2
    scenario, options = SCENARIOS[sys.argv[1]]
    binary = os.environ.get("NB_BINARY")
    if not binary:
        print("NB_BINARY is not set", file=sys.stderr)
        return 2
    started = time.monotonic()
    repo = Repository(binary)
    server = driver = None
    try:
        server = repo.serve()
        driver = browser(**options)
        scenario(repo, server, driver)
    except Exception:
        traceback.print_exc()
        return 1
    finally:
        if driver is not None:
            driver.quit()
        if server is not None:
            server.stop()
        repo.remove()
    print(f"{sys.argv[1]}: passed in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
