#!/usr/bin/env python3
"""Writes the example images: three of the demo's held-out digits (demo/samples) as PNG files
the way a scan would look — dark ink on white, 32x32 pixels (each 8x8 pixel a 4x4 block) — one
of them in RGB. Standard library only (no numpy):  python3 examples/data/make_images.py"""
import ast
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "demo", "samples")


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY"
    header_len = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + header_len].decode("latin1"))
    assert header["descr"] == "<f4" and not header["fortran_order"]
    count = 1
    for d in header["shape"]:
        count *= d
    values = struct.unpack("<%df" % count, data[10 + header_len:10 + header_len + 4 * count])
    return header["shape"], values


def write_png(path, width, height, channels, rows):
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    color_type = {1: 0, 3: 2}[channels]
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    png = (b"\x89PNG\r\n\x1a\n" +
           chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)) +
           chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(png)


def main():
    shape, values = read_npy(os.path.join(SAMPLES, "digits_8x8.npy"))
    with open(os.path.join(SAMPLES, "labels.txt")) as f:
        labels = [int(x) for x in f.read().split()]
    scale = 4
    for index, channels in ((1, 1), (2, 1), (4, 3)):
        pixels = values[index * 64:(index + 1) * 64]
        rows = []
        for y in range(8 * scale):
            row = []
            for x in range(8 * scale):
                ink = pixels[(y // scale) * 8 + x // scale]
                level = round(255 * (1.0 - min(max(ink, 0.0), 1.0)))
                row += [level] * channels
            rows.append(row)
        name = "digit_%d%s.png" % (labels[index], "_rgb" if channels == 3 else "")
        write_png(os.path.join(HERE, name), 8 * scale, 8 * scale, channels, rows)
        print("wrote", name)


if __name__ == "__main__":
    main()
