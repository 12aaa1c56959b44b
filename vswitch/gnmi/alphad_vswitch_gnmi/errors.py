"""A request the server refuses, with the gRPC status code gNMI specifies."""

from __future__ import annotations

import grpc

__all__ = ["GnmiError", "invalid", "not_found", "unimplemented"]


class GnmiError(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def invalid(msg: str) -> GnmiError:
    return GnmiError(grpc.StatusCode.INVALID_ARGUMENT, msg)


def not_found(msg: str) -> GnmiError:
    return GnmiError(grpc.StatusCode.NOT_FOUND, msg)


def unimplemented(msg: str) -> GnmiError:
    return GnmiError(grpc.StatusCode.UNIMPLEMENTED, msg)
