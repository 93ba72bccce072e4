"""A TCP relay on loopback that cuts one answer short, as a network does.

    python3 cutting_relay.py PORT TARGET_PORT CUT_AFTER_BYTES [close|stall]

Listens on 127.0.0.1:PORT and relays every connection to 127.0.0.1:TARGET_PORT. The first
connection whose server answers at all (a probe that only connects does not count) is cut once
CUT_AFTER_BYTES bytes of the answer, head and body, have been passed on: closed on both sides
(`close`, the default), or left open with nothing more passed on until the client leaves
(`stall`). Every other connection is relayed whole. Runs until killed.
"""
import socket
import sys
import threading

port, target_port, cut_after = (int(argument) for argument in sys.argv[1:4])
stalls = len(sys.argv) > 4 and sys.argv[4] == "stall"
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(64)
cut = {"used": False}
cut_lock = threading.Lock()


def claim_cut():
    with cut_lock:
        if cut["used"]:
            return None
        cut["used"] = True
        return cut_after


def pump(source, sink, answers):
    passed = 0
    limit = None
    try:
        while True:
            chunk = source.recv(65536)
            if not chunk:
                break
            if answers and passed == 0:
                limit = claim_cut()
            if limit is not None and passed + len(chunk) >= limit:
                sink.sendall(chunk[: limit - passed])
                if stalls:
                    # Nothing more until the client closes its side.
                    while sink.recv(65536):
                        pass
                break
            sink.sendall(chunk)
            passed += len(chunk)
    except OSError:
        pass
    for end in (source, sink):
        try:
            end.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        end.close()


while True:
    client, _ = listener.accept()
    server = socket.create_connection(("127.0.0.1", target_port))
    threading.Thread(target=pump, args=(client, server, False), daemon=True).start()
    threading.Thread(target=pump, args=(server, client, True), daemon=True).start()
