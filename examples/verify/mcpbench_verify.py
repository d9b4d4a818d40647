#!/usr/bin/env python3
"""An independent verifier of MCPBench reveal bundles (docs/attestations.md), standard library only.

    python3 mcpbench_verify.py BUNDLE_FILE_OR_URL [--checkpoint FILE] [--key FILE]

As a module: verify(bundle, checkpoint=None, key=None) returns a summary dict or raises Rejected
naming the first failure, in the order of the doc's "Verification" section.
"""
from __future__ import annotations

import argparse
import base64
import binascii
import functools
import hashlib
import json
import math
import re
import sys
import urllib.request

FORMAT, FORMAT_V1 = "mcpbench-reveal/2", "mcpbench-reveal/1"  # /1: every task revealed
DOMAIN = b"mcpbench/task-commitment/v1\x00"
MONTH = re.compile(r"[0-9]{4}-(0[1-9]|1[0-2])")
HEX32, HEX4, SIZE = re.compile("[0-9a-f]{64}"), re.compile("[0-9a-f]{8}"), re.compile("[1-9][0-9]*")
# Not in a key name: Unicode White_Space (Go's unicode.IsSpace, Rust's char::is_whitespace), or
# a lone surrogate (undecodable bytes of a key file, kept by surrogateescape).
NOT_IN_NAME = re.compile("[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
                         "\ud800-\udfff]")
CONTROL = re.compile("[\x00-\x09\x0b-\x1f]")  # a signed note holds no control character but \n
NOT_A_BUNDLE = "the bundle is not a reveal bundle: "


class Rejected(Exception):
    """The bundle does not verify; the message names the first failure."""


# --- Ed25519 (RFC 8032 section 5.1), strict like ed25519-dalek's verify_strict -------------

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
IDENTITY = (0, 1, 1, 0)  # extended homogeneous coordinates (X, Y, Z, T): x = X/Z, y = Y/Z


def _add(p, q):
    (x1, y1, z1, t1), (x2, y2, z2, t2) = p, q
    a, b = (y1 - x1) * (y2 - x2) % P, (y1 + x1) * (y2 + x2) % P
    c, d = 2 * t1 * t2 * D % P, 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(s, p):
    q = IDENTITY
    while s:
        if s & 1:
            q = _add(q, p)
        p, s = _add(p, p), s >> 1
    return q


def _equal(p, q):
    return (p[0] * q[2] - q[0] * p[2]) % P == 0 and (p[1] * q[2] - q[1] * p[2]) % P == 0


@functools.lru_cache(maxsize=4096)
def _decode_point(b: bytes):
    """RFC 8032 section 5.1.3: None when y >= p, when no x exists, or x = 0 with the sign set."""
    y = int.from_bytes(b, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P or (x == 0 and sign):
        return None
    x = P - x if x & 1 != sign else x
    return (x, y, 1, x * y % P)


BASE = _decode_point((4 * pow(5, P - 2, P) % P).to_bytes(32, "little"))


@functools.lru_cache(maxsize=4096)
def ed25519_verify(public: bytes, message: bytes, signature: bytes) -> bool:
    """Cofactorless [S]B == R + [k]A; refuses S >= L, bad encodings, small-order A or R."""
    if len(public) != 32 or len(signature) != 64:
        return False
    a, r = _decode_point(public), _decode_point(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= L:
        return False
    if _equal(_mul(8, a), IDENTITY) or _equal(_mul(8, r), IDENTITY):
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little") % L
    return _equal(_mul(s, BASE), _add(r, _mul(k, a)))


# --- JSON read strictly, and JCS (RFC 8785) ------------------------------------------------


def _members(pairs):
    members = {}
    for name, value in pairs:
        if name in members:
            raise Rejected(f"{NOT_A_BUNDLE}the member {json.dumps(name)} appears twice")
        members[name] = value
    return members


def _constant(name):
    raise Rejected(f"{NOT_A_BUNDLE}{name} is not a JSON number")


def _float(text):  # (ASCII: only json's pure-Python scanner would pass other digits here)
    if not text.isascii() or not math.isfinite(x := float(text)):
        raise Rejected(f"{NOT_A_BUNDLE}the number {text[:30]} is out of range")
    return x


def _int(text):  # very long integers are read as doubles (inf is refused), as serde_json does
    return int(text) if len(text) <= 20 and text.isascii() else _float(text)


def parse_json(data: bytes):
    try:
        value = json.loads(bytes(data).decode("utf-8"), object_pairs_hook=_members,
                           parse_constant=_constant, parse_float=_float, parse_int=_int)
        json.dumps(value, ensure_ascii=False).encode("utf-8")  # refuses lone surrogates anywhere
    except UnicodeDecodeError as e:
        raise Rejected(f"{NOT_A_BUNDLE}not UTF-8 ({e.reason} at byte {e.start})") from None
    except UnicodeEncodeError:
        raise Rejected(f"{NOT_A_BUNDLE}a string holds a lone surrogate") from None
    except RecursionError:
        raise Rejected(f"{NOT_A_BUNDLE}nested too deeply") from None
    except ValueError as e:  # json.JSONDecodeError among them
        raise Rejected(f"{NOT_A_BUNDLE}{e}") from None
    return value


def es_number(x: float) -> str:
    """ECMAScript's Number.prototype.toString of a finite double, from repr's shortest digits."""
    if x == 0:
        return "0"  # -0 too
    if x < 0:
        return "-" + es_number(-x)
    mantissa, _, exp = repr(x).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits, n = whole + frac, len(whole) + int(exp or 0)  # x = 0.<digits> * 10^n
    n -= len(digits) - len(digits.lstrip("0"))
    digits = digits.strip("0")
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{mantissa}e{'+' if n > 0 else '-'}{abs(n - 1)}"


MAX_DEPTH = 64  # arrays and objects nest at most this deep (the value itself is level 1)


def jcs(value, depth: int = 1) -> str:
    """The RFC 8785 text of a parsed JSON value (json.dumps escapes strings as JCS does)."""
    if isinstance(value, (list, dict)) and depth > MAX_DEPTH:
        raise Rejected(f"nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        if abs(value) > 2**53:
            raise Rejected(f"the number {value} is beyond +-2^53")
        return str(value) if isinstance(value, int) else es_number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(jcs(v, depth + 1) for v in value) + "]"
    names = sorted(value, key=lambda name: name.encode("utf-16-be"))  # UTF-16 code units
    return "{" + ",".join(jcs(n) + ":" + jcs(value[n], depth + 1) for n in names) + "}"


# --- The Merkle tree (RFC 6962, RFC 9162) --------------------------------------------------


def _sha256(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def merkle_root(leaves: list) -> bytes:
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return _sha256(b"\x01", merkle_root(leaves[:k]), merkle_root(leaves[k:]))


def verify_inclusion(leaf: bytes, index: int, size: int, proof: list, root: bytes) -> bool:
    """RFC 9162 section 2.1.3.2."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = _sha256(b"\x01", p, r)
            while fn & 1 == 0 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = _sha256(b"\x01", r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


# --- Keys, signed notes and checkpoints (C2SP signed-note, tlog-checkpoint) -----------------


def _b64(text: str, what: str) -> bytes:
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Rejected(f"{what} is not canonical base64") from None
    if base64.b64encode(raw).decode() != text:  # b64decode ignores the unused trailing bits
        raise Rejected(f"{what} is not canonical base64")
    return raw


def _valid_name(name: str) -> bool:
    return bool(name) and "+" not in name and not NOT_IN_NAME.search(name)


def parse_key(text: str):
    """`<name>+<hex key id>+<base64(0x01 || public key)>` -> (name, key id, public key)."""
    parts = text.removesuffix("\n").split("+", 2)  # the base64 may itself hold a '+'
    if len(parts) != 3:
        raise Rejected("the key: a key is <name>+<key id>+<base64 key>")
    name, kid, b64 = parts
    if not _valid_name(name):
        raise Rejected("the key: the key's name is not valid")
    tagged = _b64(b64, "the key: the key")
    if len(tagged) != 33 or tagged[0] != 0x01:
        raise Rejected("the key: the key is not an Ed25519 key (0x01 and 32 bytes)")
    if not HEX4.fullmatch(kid):
        raise Rejected("the key: the key id is not 8 lowercase hex digits")
    if _sha256(name.encode(), b"\n\x01", tagged[1:])[:4].hex() != kid:
        raise Rejected("the key: the key id does not belong to the key")
    if _decode_point(tagged[1:]) is None:
        raise Rejected("the key: the key is not a curve point")
    return name, bytes.fromhex(kid), tagged[1:]


def open_note(note: str, name: str, kid: bytes, public: bytes) -> str:
    """The text of the note, when one of its signature lines by the key verifies."""
    malformed = Rejected("the checkpoint is not a signed note")
    split = note.rfind("\n\n")
    if CONTROL.search(note) or split < 0 or not note.endswith("\n") or split + 2 == len(note):
        raise malformed
    text, ours, good = note[: split + 1], 0, False
    for line in note[split + 2 : -1].split("\n"):  # every line is read, even after a good one
        signer, space, b64 = line.removeprefix("\u2014 ").partition(" ")
        if not line.startswith("\u2014 ") or not space or not _valid_name(signer):
            raise malformed
        try:
            blob = _b64(b64, "a signature")
        except Rejected:
            raise malformed from None
        if len(blob) < 5:
            raise malformed
        if signer == name and blob[:4] == kid:
            ours += 1
            good = good or ed25519_verify(public, text.encode("utf-8"), blob[4:])
    if not good:
        raise Rejected("the checkpoint's signature does not verify with the key" if ours
                       else "the checkpoint carries no signature by the key")
    return text


def parse_checkpoint(text: str, set_id: str, count: int) -> bytes:
    """Step 5: the body's three lines, well formed, then of this set and size; returns the root."""
    lines = text[:-1].split("\n")
    if len(lines) != 3:
        raise Rejected("the checkpoint is not three lines (origin, size, root)")
    origin, size, root = lines
    if not origin:
        raise Rejected("the checkpoint has no origin")
    if not SIZE.fullmatch(size) or len(size) > 20:
        raise Rejected("the checkpoint's size is not a positive decimal number")
    if len(root_bytes := _b64(root, "the checkpoint's root")) != 32:
        raise Rejected("the checkpoint's root is not 32 bytes")
    if not origin.endswith("/sets/" + set_id):
        raise Rejected(f"the checkpoint's origin {json.dumps(origin)} is not of set "
                       f"{json.dumps(set_id)}")
    if int(size) != count:
        raise Rejected(f"the checkpoint commits to {size} tasks, the bundle reveals {count}")
    return root_bytes


# --- The bundle ----------------------------------------------------------------------------


def _shape(obj, want: dict, where: str) -> None:
    """Exactly the members in `want`, each of its type."""
    if not isinstance(obj, dict) or obj.keys() != want.keys():
        raise Rejected(f"{NOT_A_BUNDLE}{where} must have exactly {', '.join(want)}")
    for name, kind in want.items():
        if not isinstance(obj[name], kind):
            json_type = {str: "a string", list: "an array"}[kind]
            raise Rejected(f"{NOT_A_BUNDLE}{where}'s {name} is not {json_type}")


def _entry_shape(entry, i: int, fmt: str) -> str:
    """'revealed' (salt, task, proof) or, in the current format, 'withheld' (commitment, proof)."""
    if not isinstance(entry, dict):
        raise Rejected(f"{NOT_A_BUNDLE}task {i} is not an object")
    for name, kind in dict(salt=str, task=object, commitment=str, proof=list).items():
        if name in entry and (entry[name] is None or not isinstance(entry[name], kind)):
            json_type = {str: "a string", list: "an array", object: "a value"}[kind]
            raise Rejected(f"{NOT_A_BUNDLE}task {i}'s {name} is not {json_type}")
    if "proof" in entry and not all(isinstance(p, str) for p in entry["proof"]):
        raise Rejected(f"{NOT_A_BUNDLE}task {i}'s proof is not a list of strings")
    if entry.keys() == {"salt", "task", "proof"}:
        return "revealed"
    if entry.keys() == {"commitment", "proof"} and fmt == FORMAT:
        return "withheld"
    also = ", or exactly commitment, proof" if fmt == FORMAT else ""
    raise Rejected(f"{NOT_A_BUNDLE}task {i} must have exactly salt, task, proof{also}")


def _verify(data: bytes, checkpoint: str | None, key: str | None) -> dict:
    bundle = parse_json(data)  # 1
    strings = dict.fromkeys(["format", "set", "tag", "key", "checkpoint"], str)
    _shape(bundle, {**strings, "tasks": list}, "the document")
    if bundle["format"] not in (FORMAT, FORMAT_V1):
        raise Rejected(f"the format is neither {FORMAT} nor {FORMAT_V1}")
    shapes = [_entry_shape(e, i, bundle["format"]) for i, e in enumerate(bundle["tasks"])]
    if not MONTH.fullmatch(bundle["set"]):
        raise Rejected("the set is not named by its month, YYYY-MM")
    if bundle["tag"] != "Historical-" + bundle["set"]:
        raise Rejected("the tag is not Historical-<set>")
    note, tasks = bundle["checkpoint"], bundle["tasks"]
    if checkpoint is not None and checkpoint != note:  # 2
        raise Rejected("the bundle's checkpoint is not the one given")
    if key is not None and key.removesuffix("\n") != bundle["key"]:  # 3
        raise Rejected("the bundle names another key than the one given")
    name, kid, public = parse_key(bundle["key"] if key is None else key)  # 3
    body = open_note(note, name, kid, public)  # 4
    root = parse_checkpoint(body, bundle["set"], len(tasks))  # 5
    ids, leaves, withheld = set(), [], []
    for i, (entry, shape) in enumerate(zip(tasks, shapes)):  # 6
        proof = entry["proof"]
        if shape == "withheld":
            if not HEX32.fullmatch(entry["commitment"]):
                raise Rejected(f"task {i}: the commitment is not 64 lowercase hex digits")
            withheld.append(i)
            what = "the withheld commitment"
        else:
            salt, task = entry["salt"], entry["task"]
            if not HEX32.fullmatch(salt):
                raise Rejected(f"task {i}: the salt is not 64 lowercase hex digits")
            if not isinstance(task, dict) or not isinstance(task.get("id"), str):
                raise Rejected(f"task {i}: the task has no string id")
            if task["id"] in ids:
                raise Rejected(f"task {i}: the id {json.dumps(task['id'])} appears twice")
            ids.add(task["id"])
            what = json.dumps(task["id"])
        if not all(HEX32.fullmatch(p) for p in proof):
            raise Rejected(f"task {i}: a proof element is not 64 lowercase hex digits")
        if shape == "withheld":
            commitment = bytes.fromhex(entry["commitment"])
        else:
            try:
                canonical = jcs(task).encode("utf-8")
            except Rejected as e:
                raise Rejected(f"task {i}: {e}") from None
            except (UnicodeError, RecursionError):
                raise Rejected(f"task {i}: the task has no canonical form") from None
            commitment = _sha256(DOMAIN, bytes.fromhex(salt), canonical)
        leaf = _sha256(b"\x00", commitment)
        if not verify_inclusion(leaf, i, len(tasks), [bytes.fromhex(p) for p in proof], root):
            raise Rejected(f"task {i}: {what} does not match the commitment at its place")
        leaves.append(leaf)
    if merkle_root(leaves) != root:  # 7
        raise Rejected("the tasks' root is not the checkpoint's")
    return {"set": bundle["set"], "tag": bundle["tag"], "tasks": len(tasks), "withheld": withheld,
            "root": root.hex(), "fingerprint": hashlib.sha256(public).hexdigest(),
            "key_from_bundle": key is None}


def verify(bundle: bytes, checkpoint: str | None = None, key: str | None = None) -> dict:
    """Checks a reveal bundle against the checkpoint and key given (else the bundle's own).

    Returns {set, tag, tasks, withheld, root, fingerprint, key_from_bundle}, where withheld lists
    the places of the tasks shown by their commitment alone (a live set still holds them);
    raises Rejected otherwise.
    """
    try:
        return _verify(bundle, checkpoint, key)
    except Rejected:
        raise
    except Exception as e:  # a last resort: every failure is a verdict, never a crash
        raise Rejected(f"the bundle could not be checked ({type(e).__name__}: {e})") from None


# --- Command line --------------------------------------------------------------------------


def _read(path: str) -> bytes:
    if path.startswith(("http://", "https://")):
        with urllib.request.urlopen(path, timeout=30) as response:
            return response.read()
    with open(path, "rb") as f:
        return f.read()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Verify an MCPBench reveal bundle offline.")
    ap.add_argument("bundle", help="the bundle: a file, or a URL such as .../sets/ID/bundle")
    ap.add_argument("--checkpoint", help="the checkpoint note saved when the set went live")
    ap.add_argument("--key", help="the service's key (GET /.well-known/mcpbench-checkpoint-key)")
    args = ap.parse_args(argv)
    try:  # a checkpoint or key file that is not UTF-8 cannot be read, as `mcpbench verify` says
        data = _read(args.bundle)
        text = {n: _read(p).decode("utf-8") if p else None
                for n, p in (("checkpoint", args.checkpoint), ("key", args.key))}
    except (OSError, ValueError) as e:  # urllib's errors are OSErrors, a bad URL or UTF-8 too
        print(f"error: cannot read: {e}", file=sys.stderr)
        return 2
    try:
        s = verify(data, **text)
    except Rejected as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if s["key_from_bundle"]:
        print("warning: no --key given: the key that came with the bundle proves nothing about "
              f"who signed; compare its fingerprint {s['fingerprint']} with the one the service "
              "publishes", file=sys.stderr)
    print(f"ok: set {s['set']} ({s['tag']}): {s['tasks']} tasks match the commitment "
          f"{s['root']}, signed by key {s['fingerprint']}")
    if s["withheld"]:
        print(f"withheld: {len(s['withheld'])} of {s['tasks']} tasks are shown by their commitment "
              "alone while a live set holds them (places "
              f"{', '.join(map(str, s['withheld']))}); they are revealed when it retires")
    return 0


if __name__ == "__main__":
    sys.exit(main())
