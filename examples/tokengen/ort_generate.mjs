#!/usr/bin/env node
// Greedy generation with ONNX Runtime (onnxruntime-node, CPU) on a model from build_decoder.py:
// a prompt, then STEPS tokens, each step feeding the previous step's present key/value caches
// back as the past. Writes the tokens (tokens.json: the prompt, then the generated ones) and the
// last position's logits of every step (logits.f32: steps + 1 rows of vocab float32 values, the
// prompt's first) into OUT, the reference check_against_ort.py compares kiln with.
//
//   ORT_NODE_DIR=$(SHARED/tools/ort/ensure-ort.sh) node ort_generate.mjs MODEL OUT
//       [--prompt 128] [--steps 64] [--threads 1] [--seed 1]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const ortDir = process.env.ORT_NODE_DIR || path.join(process.env.HOME || '/tmp', '.cache', 'ort-node');
const ort = createRequire(path.join(ortDir, 'package.json'))('onnxruntime-node');

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf('--' + name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const [modelPath, outDir] = args;
const promptLen = opt('prompt', 128), steps = opt('steps', 64), threads = opt('threads', 1);
let seed = opt('seed', 1);

const session = await ort.InferenceSession.create(modelPath, {
  intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all', logSeverityLevel: 3,
});
const pastNames = session.inputNames.filter((n) => n.startsWith('past_key_values.'));

// The prompt: token ids from a fixed linear congruential sequence.
const tokens = [];
for (let i = 0; i < promptLen; i++) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  tokens.push(seed % 1000);
}
let past = {};
for (const n of pastNames) {
  // [batch, kv_heads, 0, head]: the shape of the first present tells kv_heads and head; start
  // from an empty cache of the model's declared dims.
  const meta = session.inputMetadata.find((m) => m.name === n);
  past[n] = new ort.Tensor('float32', new Float32Array(0), [1, Number(meta.shape[1]), 0, Number(meta.shape[3])]);
}
const rows = [];
let input = tokens.slice();
const times = [], cpuTimes = [];
for (let step = 0; step <= steps; step++) {
  const total = tokens.length;
  const feeds = {
    input_ids: new ort.Tensor('int64', BigInt64Array.from(input.map(BigInt)), [1, input.length]),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(total).fill(1n), [1, total]),
    ...past,
  };
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const out = await session.run(feeds);
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  const cpu = process.cpuUsage(cpu0);  // all threads of the process, as kiln's tokengen counts
  cpuTimes.push((cpu.user + cpu.system) / 1e3);
  const logits = out.logits.data;
  const v = out.logits.dims[2];
  const last = logits.subarray((input.length - 1) * v, input.length * v);
  rows.push(Float32Array.from(last));
  let best = 0;
  for (let i = 1; i < v; i++) if (last[i] > last[best]) best = i;
  past = {};
  for (const n of pastNames) past[n] = out[n.replace('past_key_values.', 'present.')];
  if (step < steps) {
    tokens.push(best);
    input = [best];
  }
}
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, 'tokens.json'), JSON.stringify({ prompt: promptLen, tokens }));
const all = new Float32Array(rows.length * rows[0].length);
rows.forEach((r, i) => all.set(r, i * r.length));
fs.writeFileSync(path.join(outDir, 'logits.f32'), Buffer.from(all.buffer));
const decode = times.slice(1).sort((a, b) => a - b);
const decodeCpu = cpuTimes.slice(1).sort((a, b) => a - b);
const mid = (v) => v[Math.floor(v.length / 2)];
console.log(`ONNX Runtime: prompt ${promptLen} tokens ${times[0].toFixed(1)} ms (CPU ${cpuTimes[0].toFixed(1)} ms), ` +
            `decode median ${mid(decode).toFixed(2)} ms/token (CPU ${mid(decodeCpu).toFixed(2)} ms) (${threads} threads)`);
