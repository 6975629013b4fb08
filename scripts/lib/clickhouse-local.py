#!/usr/bin/env python3
"""Run clickhouse-local from chdb's library as a server (scripts/lib/clickhouse-server.ts).

chdb's libchdb.so is ClickHouse built as clickhouse-local, whose `SYSTEM START LISTEN` serves
ClickHouse's own HTTP and native (TCP) interfaces for as long as the invocation runs. Usage:
  clickhouse-local.py LIBCHDB_SO [clickhouse-local arguments...]
The process dies with its parent (PR_SET_PDEATHSIG), so a test run never leaves a server behind.
Node cannot call the library itself: ClickHouse checks the stack it runs on, which a Node FFI call's
is not (research: clickhouse-server.md).
"""
import ctypes
import signal
import sys

PR_SET_PDEATHSIG = 1
ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)

lib = ctypes.CDLL(sys.argv[1])
lib.chdb_query_cmdline.restype = ctypes.c_void_p
lib.chdb_query_cmdline.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
lib.chdb_result_error.restype = ctypes.c_char_p
lib.chdb_result_error.argtypes = [ctypes.c_void_p]

args = [b"clickhouse"] + [a.encode() for a in sys.argv[2:]]
result = lib.chdb_query_cmdline(len(args), (ctypes.c_char_p * len(args))(*args))
error = lib.chdb_result_error(result) if result else b"no result"
if error:
    sys.stderr.write(error.decode(errors="replace") + "\n")
    sys.exit(1)
