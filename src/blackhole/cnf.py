"""Moved to `blackhole.encode.cnf`; this name re-exports it until the last importer
(tests/test_external.py) uses the new one."""

from blackhole.encode.cnf import (  # noqa: F401
    CERTIFY_FEATURES,
    DEFAULT_FEATURES,
    ENCODING_VERSION,
    FEATURES,
    Encoding,
    build_cnf,
    known_features,
)
