#!/usr/bin/env python3
"""A local CDN for the reference manifests: serves DIR as {url}/manifests/<path>.

    python3 scripts/local_cdn.py ../shared/reference-content/hyperscape-manifests 8099
    PUBLIC_CDN_URL=http://127.0.0.1:8099 target/release/wayfarer serve

Why not `python3 -m http.server`: its listen backlog is 5, and the server fetches 8 files at once,
so the connections beyond the backlog have their SYN dropped and retried by the kernel a second
later. Every start then took a second longer against it than against a real CDN (BENCHMARKS.md,
"Start to ready").
"""
import functools
import http.server
import os
import sys
import tempfile


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 128


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    manifests, port = os.path.abspath(sys.argv[1]), int(sys.argv[2])
    root = tempfile.mkdtemp(prefix="wayfarer-cdn-")
    os.symlink(manifests, os.path.join(root, "manifests"))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
    handler.func.log_message = lambda *args: None
    print(f"serving {manifests} at http://127.0.0.1:{port}/manifests/", flush=True)
    Server(("127.0.0.1", port), handler).serve_forever()


if __name__ == "__main__":
    main()
