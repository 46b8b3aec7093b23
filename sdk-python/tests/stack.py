"""What test/sdk/pythonClient.test.ts passes in: the stack it started, a renter and a listing."""

import os


def setting(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: these tests run in test/sdk/pythonClient.test.ts")
    return value
