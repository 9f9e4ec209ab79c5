// llama_cpp_ref.mjs - llama.cpp itself as the reference for a GGUF model
// (issue 28), through npm node-llama-cpp's prebuilt CPU library (no GPU, no
// build): tests/test_ggufmodel.c runs it.
//
//   node llama_cpp_ref.mjs ROOT MODEL.gguf eval STEPS TEXT [IDS]
//   node llama_cpp_ref.mjs ROOT MODEL.gguf tokenize TEXTS.json
//
// ROOT holds node_modules/node-llama-cpp (tests/fetch_llama_cpp.sh).
// tokenize: the model's vocabulary alone (vocabOnly), each text of the JSON
// array TEXTS tokenized as below: one JSON array of id arrays. eval prints
// one JSON object on one line:
//   tokens   llama.cpp's tokenization of TEXT (BOS as the model's
//            add_bos_token says; special tokens in TEXT not parsed)
//   top      the next token after IDS (comma-separated ids; default: tokens)
//            as [[id, probability], ...], the ten most likely
//   greedy   STEPS greedy tokens after IDS, each [id, p1, p2]: its
//            probability and that of the runner-up
// The context: one sequence, flash attention off, an F32 KV cache (keys and
// values not rounded to F16), one thread, the probabilities those of the
// logits without sampling (temperature 0: greedy).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [root, model, mode, arg, text, idsArg] = process.argv.slice(2);
const require = createRequire(path.join(root, 'package.json'));
const entry = require.resolve('node-llama-cpp');
const { getLlama } = await import(pathToFileURL(entry).href);

const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' });
const m = await llama.loadModel({ modelPath: model, gpuLayers: 0, vocabOnly: mode === 'tokenize' });
const bos = m.tokens.shouldPrependBosToken && m.tokens.bos != null ? [m.tokens.bos] : [];
const encode = (t) => bos.concat(Array.from(m.tokenize(t, false)));
if (mode === 'tokenize') {
    const texts = JSON.parse(fs.readFileSync(arg, 'utf8'));
    console.log(JSON.stringify(texts.map(encode)));
    await m.dispose();
    await llama.dispose();
    process.exit(0);
}
const tokens = encode(text);
const ids = idsArg ? idsArg.split(',').filter((s) => s.length).map(Number) : tokens;
const steps = Number(arg);

/* the top two of a probabilities map (sorted highest first) */
function firstTwo(probs) {
    const it = probs.entries();
    const a = it.next().value, b = it.next().value;
    return [a ? a[1] : 0, b ? b[1] : 0];
}

async function run(nsteps) {
    const ctx = await m.createContext({
        contextSize: Math.max(64, ids.length + nsteps + 8),
        sequences: 1,
        flashAttention: false,
        threads: 1,
        batchSize: 512,
        experimentalKvCacheKeyType: 'F32',
        experimentalKvCacheValueType: 'F32',
    });
    const seq = ctx.getSequence();
    const out = { top: [], greedy: [] };
    let step = 0;
    for await (const r of seq.evaluateWithMetadata(ids, { probabilities: true }, { temperature: 0 })) {
        if (step === 0) out.top = Array.from(r.probabilities.entries()).slice(0, 10);
        const [p1, p2] = firstTwo(r.probabilities);
        out.greedy.push([r.token, p1, p2]);
        if (++step >= Math.max(1, nsteps)) break;
    }
    await ctx.dispose();
    return out;
}

const out = await run(steps);
console.log(JSON.stringify({ tokens, top: out.top, greedy: steps > 0 ? out.greedy : [] }));
await m.dispose();
await llama.dispose();
