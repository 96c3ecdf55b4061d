"""Secrets never written: credentials are cut out of every URL before it is recorded.

An endpoint URL may carry a password (``http://user:PASS@host/v1``) or a key in its query
(``...?api-key=PASS``). What the run records (manifest, transcripts, scores, report, viewer, log
lines) and what its config hash is computed from is the redacted form: the userinfo removed,
credential-like query parameters removed. The backend alone keeps the URL it was given.
"""

from __future__ import annotations

import re
from typing import Any, List, Optional, Sequence, Tuple
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

# query parameter names (lower case, "-" and "_" alike) that carry a credential
SECRET_PARAMS = frozenset({"apikey", "api_key", "key", "token", "access_token", "auth", "authorization",
                           "sig", "signature", "secret", "client_secret", "password", "pass", "pwd",
                           "code", "session", "sessionid", "credential", "credentials", "x_api_key"})
SECRET_WORDS = ("key", "token", "secret", "sig", "pass", "auth", "cred")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")


def is_secret_param(name: str) -> bool:
    norm = name.lower().replace("-", "_")
    return norm in SECRET_PARAMS or any(word in norm for word in SECRET_WORDS)


def redact_url(url: str) -> str:
    """``url`` without userinfo and without credential-like query parameters."""
    try:
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
        query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                           if not is_secret_param(k)])
        return urlunsplit((parts.scheme, host, parts.path, query, parts.fragment))
    except ValueError:                       # not a URL we can read: keep only its scheme
        return url.partition("://")[0] + "://[redacted]"


def split_userinfo(url: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """``url`` without its userinfo, and the credential it carried (the password, or a lone user
    name, as in ``http://TOKEN@host/v1``), else None. The HTTP client refuses a URL with
    userinfo beside the SDK's own Authorization header, so the credential travels as the key."""
    if not url or "@" not in url:
        return url, None
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, None
    userinfo, at, host = parts.netloc.rpartition("@")
    if not at:
        return url, None
    user, _, password = userinfo.partition(":")
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment)), unquote(password or user) or None


def redact_text(text: str) -> str:
    """Every URL inside ``text`` redacted (a solver spec, a command line, an error message)."""
    if "://" not in text:
        return text
    return _URL.sub(lambda m: redact_url(m.group(0)), text)


def redact_argv(argv: Sequence[str]) -> List[str]:
    return [redact_text(a) for a in argv]


def redact_obj(obj: Any) -> Any:
    """Every string in a JSON-like value redacted."""
    if isinstance(obj, str):
        return redact_text(obj)
    if isinstance(obj, dict):
        return {k: redact_obj(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [redact_obj(v) for v in obj]
    return obj
