"""Golden vectors of ``acl_signature.jsonl``: what the released ``AclClientRPCHook`` (rocketmq-acl 4.9.8,
rocketmq-client 5.3.3) adds to a request, reproduced by :func:`rocketroute.protocol.acl.sign_request`.

``sign``: a request (code 10) with the case's ``ext_fields`` (``null``: none at all) and ``body`` (Base64;
``null``: none) run through the hook of ``SessionCredentials(access_key, secret_key, security_token)``, twice when
``twice`` (a retried request); ``expect`` is every ext field after, ``AccessKey``, ``SecurityToken`` and
``Signature`` included. The signing is the remoting layer's, the same on both backends: each backend's run
checks it once more.
"""

from __future__ import annotations

import base64

from rocketroute.protocol import RemotingCommand
from rocketroute.protocol.acl import Credentials, sign_request

from ._support import parametrize_vectors, run_case

VECTOR_FILE = "acl_signature"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


def check_sign(rr, f, compat):
    ext, body = f["ext_fields"], f["body"]
    request = RemotingCommand.request(10, ext or {}, None if body is None else base64.b64decode(body))
    credentials = Credentials(f["access_key"], f["secret_key"], f["security_token"])
    sign_request(request, credentials)
    if f["twice"]:
        sign_request(request, credentials)
    assert request.ext_fields == f["expect"], f"{f.where}: signed as {request.ext_fields}"


CHECKS = {"sign": check_sign}


def test_acl_signature_vector(case, backend):
    run_case(case, backend, CHECKS)
