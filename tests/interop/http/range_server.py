"""A static file server that honours single-range "Range: bytes=a-b" requests (HTTP 206),
counting them, for the HTTP read test. Prints its port on the first line of stdout.

    python3 range_server.py DIR
"""
import http.server
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1])


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _file(self):
        path = os.path.join(ROOT, self.path.lstrip("/"))
        if not os.path.abspath(path).startswith(ROOT) or not os.path.isfile(path):
            self.send_error(404)
            return None
        return path

    def do_HEAD(self):
        path = self._file()
        if path:
            self.send_response(200)
            self.send_header("Content-Length", str(os.path.getsize(path)))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()

    def do_GET(self):
        path = self._file()
        if not path:
            return
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            data = f.read()
        match = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
        if match:
            start, end = int(match.group(1)), min(int(match.group(2)), size - 1)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            body = data[start:end + 1]
        else:
            self.send_response(200)
            body = data
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
