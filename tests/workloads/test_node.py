"""Workloads: Node.js with worker threads, WebAssembly memory, and fetch to an
HTTP server started in the same run on loopback (the network is off: loopback
inside the run works). Each job runs bare and under `paldron exec`
(workload.py)."""

from workload import WorkloadTest, main

WORKERS = r"""
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
if (isMainThread) {
  const jobs = [1, 2, 3, 4].map((n) => new Promise((resolve, reject) => {
    const w = new Worker(__filename, { workerData: n });
    w.on('message', resolve);
    w.on('error', reject);
  }));
  Promise.all(jobs).then((sums) => {
    fs.mkdirSync('out', { recursive: true });
    fs.writeFileSync('out/workers.json', JSON.stringify(sums) + '\n');
    console.log('workers done');
  });
} else {
  let s = 0;
  for (let i = 0; i < 1e6 * workerData; i++) s += i % 7;
  parentPort.postMessage(s);
}
"""

WASM = r"""
const fs = require('node:fs');
// (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 7, 1, 96, 2, 127, 127, 1, 127,
  3, 2, 1, 0, 7, 7, 1, 3, 97, 100, 100, 0, 0, 10, 9, 1, 7, 0, 32, 0, 32, 1, 106, 11]);
const mem = new WebAssembly.Memory({ initial: 1, maximum: 65536 });
mem.grow(15);
const mem2 = new WebAssembly.Memory({ initial: 16 });
WebAssembly.instantiate(bytes).then(({ instance }) => {
  const line = `add=${instance.exports.add(2, 40)} pages=${mem.buffer.byteLength / 65536} ` +
               `pages2=${mem2.buffer.byteLength / 65536}\n`;
  fs.writeFileSync('wasm.txt', line);
  console.log(line.trim());
});
"""

FETCH = r"""
const http = require('node:http');
const fs = require('node:fs');
const server = http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ path: req.url, method: req.method }));
});
server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address();
  try {
    const r = await fetch(`http://127.0.0.1:${port}/hello?x=1`);
    const body = await r.json();
    const r2 = await fetch(`http://localhost:${port}/post`, { method: 'POST', body: 'data' });
    fs.writeFileSync('fetched.json', JSON.stringify([r.status, body, await r2.json()]) + '\n');
    console.log('fetched', r.status);
  } finally {
    server.close();
  }
});
"""


class NodeWorkload(WorkloadTest):
    def setUp(self):
        super().setUp()
        self.need("node")

    def test_worker_threads(self):
        self.files({"workers.js": WORKERS})
        self.job("node workers.js\n", ["node"])

    def test_wasm_memory(self):
        self.files({"wasm.js": WASM})
        self.job("node wasm.js\n", ["node"])

    def test_fetch_local_server(self):
        self.files({"fetch.js": FETCH})
        self.job("node fetch.js\n", ["node"])


if __name__ == "__main__":
    main()
