"""Python client of the agent rental marketplace's REST API (standard library only)."""

__version__ = "0.1.0"

from .client import ServiceClient
from .errors import (
    ServiceAccessError,
    ServiceAPIError,
    ServiceAuthError,
    ServiceConnectionError,
    ServiceNotFoundError,
    ServiceRateLimitError,
)

__all__ = [
    "ServiceAPIError",
    "ServiceAccessError",
    "ServiceAuthError",
    "ServiceClient",
    "ServiceConnectionError",
    "ServiceNotFoundError",
    "ServiceRateLimitError",
    "__version__",
]
