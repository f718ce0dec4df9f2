"""TensorBoard scalar logs without the tensorboard package: event files written by hand.

An event file is a sequence of TFRecords (length, masked CRC-32C of the length, payload,
masked CRC-32C of the payload), each payload an ``Event`` protocol buffer. Scalars need only
four message fields, so they are encoded here directly; TensorBoard reads the files as it
reads its own. :func:`read_scalars` parses them back and checks every checksum.
"""

from __future__ import annotations

import os
import socket
import struct
import time
from pathlib import Path
from typing import BinaryIO

FILE_VERSION = b"brain.Event:2"


def _crc32c_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        table.append(crc)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of ``data``, as TFRecord framing uses."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _CRC_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    """The rotated-and-offset CRC stored in a TFRecord."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _length_delimited(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def encode_scalar_event(tag: str, value: float, step: int, wall_time: float) -> bytes:
    """An ``Event{wall_time, step, summary{value{tag, simple_value}}}`` message."""
    summary_value = _length_delimited(1, tag.encode()) + b"\x15" + struct.pack("<f", value)
    summary = _length_delimited(1, summary_value)
    return (
        b"\x09"
        + struct.pack("<d", wall_time)
        + b"\x10"
        + _varint(step)
        + _length_delimited(5, summary)
    )


def _write_record(stream: BinaryIO, payload: bytes) -> None:
    header = struct.pack("<Q", len(payload))
    stream.write(header + struct.pack("<I", masked_crc(header)))
    stream.write(payload + struct.pack("<I", masked_crc(payload)))


class ScalarLog:
    """Appends scalars to a new event file in ``directory`` (one file per instance)."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        name = f"events.out.tfevents.{int(time.time())}.{socket.gethostname()}.{os.getpid()}"
        self.path = directory / name
        suffix = 0
        while self.path.exists():
            suffix += 1
            self.path = directory / f"{name}.{suffix}"
        self._stream = self.path.open("wb")
        version = b"\x09" + struct.pack("<d", time.time()) + _length_delimited(3, FILE_VERSION)
        _write_record(self._stream, version)
        self._stream.flush()

    def scalar(self, tag: str, value: float, step: int) -> None:
        """Record ``value`` for ``tag`` at ``step``."""
        _write_record(self._stream, encode_scalar_event(tag, float(value), step, time.time()))

    def flush(self) -> None:
        """Push what was logged to disk, so a running TensorBoard sees it."""
        self._stream.flush()

    def close(self) -> None:
        """Flush and close the file."""
        self._stream.close()


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _fields(message: bytes) -> list[tuple[int, int | float | bytes]]:
    """(field number, value) of a protocol buffer message using the wire types seen here."""
    fields: list[tuple[int, int | float | bytes]] = []
    at = 0
    while at < len(message):
        key, at = _read_varint(message, at)
        field, wire = key >> 3, key & 7
        value: int | float | bytes
        if wire == 0:
            value, at = _read_varint(message, at)
        elif wire == 1:
            value = struct.unpack_from("<d", message, at)[0]
            at += 8
        elif wire == 5:
            value = struct.unpack_from("<f", message, at)[0]
            at += 4
        elif wire == 2:
            size, at = _read_varint(message, at)
            value = message[at : at + size]
            at += size
        else:
            raise ValueError(f"unsupported protocol buffer wire type {wire}")
        fields.append((field, value))
    return fields


def read_scalars(path: Path) -> list[tuple[str, int, float]]:
    """Every (tag, step, value) in an event file; raises ValueError on a bad checksum."""
    data = path.read_bytes()
    scalars: list[tuple[str, int, float]] = []
    at = 0
    while at < len(data):
        header = data[at : at + 8]
        (length,) = struct.unpack("<Q", header)
        (header_crc,) = struct.unpack_from("<I", data, at + 8)
        payload = data[at + 12 : at + 12 + length]
        (payload_crc,) = struct.unpack_from("<I", data, at + 12 + length)
        if header_crc != masked_crc(header) or payload_crc != masked_crc(payload):
            raise ValueError(f"{path}: bad record checksum at byte {at}")
        at += 16 + length
        event = _fields(payload)
        step = next((int(v) for f, v in event if f == 2 and isinstance(v, int)), 0)
        for field, value in event:
            if field != 5 or not isinstance(value, bytes):
                continue
            for _, summary_value in _fields(value):
                if not isinstance(summary_value, bytes):
                    continue
                parts = dict(_fields(summary_value))
                tag, number = parts.get(1), parts.get(2)
                if isinstance(tag, bytes) and isinstance(number, float):
                    scalars.append((tag.decode(), step, number))
    return scalars
