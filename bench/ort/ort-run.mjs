#!/usr/bin/env node
// ONNX Runtime (onnxruntime-node, CPU) beside kiln: reference outputs and timings for
// bench/compare-ort.sh. ORT_NODE_DIR is the folder bench/ort/ensure-ort.sh installed it in.
//
//   node ort-run.mjs run MODEL --inputs-dir DIR --outputs-dir DIR
//       writes output_N.pb (ONNX TensorProto) for the inputs input_N.pb in DIR
//   node ort-run.mjs bench MODEL --inputs-dir DIR [--runs N] [--warmup N] [--threads N]
//       prints: load_ms=X median_ms=X min_ms=X peak_rss_mb=X (load: session creation)
//   node ort-run.mjs baseline
//       prints peak_rss_mb=X of Node with ONNX Runtime loaded and no session (Node's own share)
//
// Only what the benchmark models use is read: tensors stored as raw_data (numpy_helper writes
// them so), of the element types in ELEMENT below.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const ortDir = process.env.ORT_NODE_DIR;
if (!ortDir) throw new Error('ORT_NODE_DIR is not set (see bench/ort/ensure-ort.sh)');
const ort = createRequire(path.join(ortDir, 'package.json'))('onnxruntime-node');

// ONNX element type -> [onnxruntime-node type, typed array]
const ELEMENT = {
  1: ['float32', Float32Array], 6: ['int32', Int32Array], 7: ['int64', BigInt64Array],
  9: ['bool', Uint8Array], 11: ['float64', Float64Array],
};
const ONNX_TYPE = Object.fromEntries(Object.entries(ELEMENT).map(([k, [name]]) => [name, Number(k)]));

function varint(buf, pos) {
  let value = 0n, shift = 0n;
  for (;;) {
    const byte = buf[pos.at++];
    value |= BigInt(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return value;
    shift += 7n;
  }
}

// TensorProto fields: 1 dims, 2 data_type, 8 name, 9 raw_data.
function decodeTensor(buf) {
  const pos = { at: 0 };
  const t = { name: '', type: 0, dims: [], raw: null };
  while (pos.at < buf.length) {
    const key = Number(varint(buf, pos)), field = key >>> 3, wire = key & 7;
    if (wire === 0) {
      const v = varint(buf, pos);
      if (field === 1) t.dims.push(Number(BigInt.asIntN(64, v)));
      else if (field === 2) t.type = Number(v);
    } else if (wire === 2) {
      const n = Number(varint(buf, pos)), bytes = buf.subarray(pos.at, pos.at + n);
      pos.at += n;
      if (field === 1) { const sub = { at: 0 }; while (sub.at < n) t.dims.push(Number(BigInt.asIntN(64, varint(bytes, sub)))); }
      else if (field === 8) t.name = Buffer.from(bytes).toString('utf8');
      else if (field === 9) t.raw = bytes;
    } else if (wire === 1) pos.at += 8;
    else if (wire === 5) pos.at += 4;
    else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
  const element = ELEMENT[t.type];
  if (!element || !t.raw) throw new Error(`tensor ${t.name}: only raw_data of types ${Object.keys(ELEMENT)} is read`);
  const copy = Uint8Array.from(t.raw);  // aligned for the typed array
  return { name: t.name, type: element[0], dims: t.dims, data: new element[1](copy.buffer) };
}

function writeVarint(out, v) {
  let x = BigInt.asUintN(64, BigInt(v));
  do { let b = Number(x & 0x7fn); x >>= 7n; if (x) b |= 0x80; out.push(b); } while (x);
}

function encodeTensor(name, tensor) {
  const head = [];
  for (const d of tensor.dims) { head.push(1 << 3); writeVarint(head, d); }
  head.push(2 << 3); writeVarint(head, ONNX_TYPE[tensor.type]);
  const parts = [Buffer.from(head)];
  const bytesField = (field, bytes) => {
    const key = [(field << 3) | 2]; writeVarint(key, bytes.length);
    parts.push(Buffer.from(key), Buffer.from(bytes));
  };
  bytesField(8, Buffer.from(name, 'utf8'));
  bytesField(9, new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
  return Buffer.concat(parts);
}

function parseArgs(argv) {
  const opts = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith('--')) opts[argv[i].slice(2)] = argv[++i];
    else opts._.push(argv[i]);
  }
  return opts;
}

function sessionOptions(opts) {
  return { intraOpNumThreads: Number(opts.threads || 0), interOpNumThreads: 1,
           graphOptimizationLevel: 'all', logSeverityLevel: 3 };
}

function readInputs(dir, session) {
  const files = fs.readdirSync(dir).filter((f) => /^input_\d+\.pb$/.test(f))
    .sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0]));
  const feeds = {};
  files.forEach((f, i) => {
    const t = decodeTensor(fs.readFileSync(path.join(dir, f)));
    feeds[session.inputNames.includes(t.name) ? t.name : session.inputNames[i]] = new ort.Tensor(t.type, t.data, t.dims);
  });
  return feeds;
}

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;  // maxRSS is in KiB

async function run(model, opts) {
  const session = await ort.InferenceSession.create(model, sessionOptions(opts));
  const results = await session.run(readInputs(opts['inputs-dir'], session));
  fs.mkdirSync(opts['outputs-dir'], { recursive: true });
  session.outputNames.forEach((name, i) => {
    fs.writeFileSync(path.join(opts['outputs-dir'], `output_${i}.pb`), encodeTensor(name, results[name]));
  });
}

async function bench(model, opts) {
  const start = performance.now();
  const session = await ort.InferenceSession.create(model, sessionOptions(opts));
  const loadMs = performance.now() - start;
  const feeds = readInputs(opts['inputs-dir'], session);
  const warmup = Number(opts.warmup ?? 5), runs = Number(opts.runs ?? 20);
  for (let i = 0; i < warmup; i++) await session.run(feeds);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    await session.run(feeds);
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  const median = runs % 2 ? times[runs >> 1] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
  console.log(`load_ms=${loadMs.toFixed(2)} median_ms=${median.toFixed(4)} min_ms=${times[0].toFixed(4)} peak_rss_mb=${peakRssMb().toFixed(1)}`);
}

const [mode, ...rest] = process.argv.slice(2);
const opts = parseArgs(rest);
if (mode === 'run') await run(opts._[0], opts);
else if (mode === 'bench') await bench(opts._[0], opts);
else if (mode === 'baseline') console.log(`peak_rss_mb=${peakRssMb().toFixed(1)}`);
else { console.error('usage: ort-run.mjs run|bench|baseline ... (see the comment at the top)'); process.exit(2); }
