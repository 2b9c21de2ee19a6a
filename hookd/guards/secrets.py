"""The secrets pack: reading private keys, .env files, cloud credentials and tokens, sending them
anywhere, and writes that put a secret into a file that looks tracked."""

from __future__ import annotations

from hookd.guards.pack import TOO_DEEP, Pack

RULES = {
    "secrets.read-private-key": "reads a private key (~/.ssh/id_*, *.pem, *.key, a GnuPG keyring)",
    "secrets.read-env-file": "reads a .env file (not .env.example and its kind)",
    "secrets.read-credentials": "reads cloud or tool credentials (~/.aws/credentials, kubeconfig, .netrc, .npmrc, .pypirc, ...)",
    "secrets.print-token": "prints a token, password or key held in an environment variable",
    "secrets.exfiltrate": "sends a secret file or its content over the network (curl -d @.env, | nc, scp)",
    "secrets.write-secret": "writes a literal secret (a key, a token) into a file that looks tracked",
    "secrets.commit-secret-file": "stages a .env file or a private key into git",
    "secrets.too-deep": TOO_DEEP,
}

PACK = Pack("secrets", RULES, {})
