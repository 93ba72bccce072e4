"""Signs a proxy path the way imgproxy documents it, with Python's own hmac module: the
URL-safe base64 (no padding) of HMAC-SHA256(key, salt + path), cut to its first SIZE bytes
when given (IMGPROXY_SIGNATURE_SIZE). Arguments: key hex, salt hex, path [, size]."""
import base64
import hashlib
import hmac
import sys

key, salt, path = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2]), sys.argv[3].encode()
digest = hmac.new(key, salt + path, hashlib.sha256).digest()
if len(sys.argv) > 4:
    digest = digest[: int(sys.argv[4])]
print(base64.urlsafe_b64encode(digest).rstrip(b"=").decode())
