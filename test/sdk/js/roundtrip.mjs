// Uploads a file to a node and downloads it back with the AWS SDK for
// JavaScript v3 as an application would: the Upload class of
// @aws-sdk/lib-storage and GetObject, with the SDK's default settings,
// then compares the bytes.
//
//   node roundtrip.mjs ENDPOINT BUCKET KEY FILE
//
// Credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. Only
// the endpoint and path style are set: a node on loopback has no bucket
// host names.
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";

import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";

const [endpoint, bucket, key, file] = process.argv.slice(2);
if (!file) {
  console.error("usage: node roundtrip.mjs ENDPOINT BUCKET KEY FILE");
  process.exit(2);
}

async function sha256(path) {
  const h = createHash("sha256");
  await pipeline(createReadStream(path), h);
  return h.digest("hex");
}

const t0 = Date.now();
const s3 = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true });
const { size } = await fs.stat(file);
console.log(`Upload ${key} (${size} bytes)`);
const upload = new Upload({ client: s3, params: { Bucket: bucket, Key: key, Body: createReadStream(file) } });
let shown = 0;
upload.on("httpUploadProgress", (p) => {
  if (p.loaded - shown >= 25 << 20) {
    shown = p.loaded;
    console.log(`  ${p.loaded} bytes sent`);
  }
});
const up = await upload.done();
console.log(`uploaded, ETag ${up.ETag}`);

console.log(`GetObject ${key}`);
const out = join(await fs.mkdtemp(join(tmpdir(), "ostium-sdk-js-")), "out");
try {
  const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  await pipeline(got.Body, createWriteStream(out));
  const [want, have, st] = [await sha256(file), await sha256(out), await fs.stat(out)];
  if (want !== have || st.size !== size) {
    console.error(`MISMATCH: sent ${size} bytes sha256 ${want}, read back ${st.size} bytes sha256 ${have}`);
    process.exit(1);
  }
  console.log(`js: ${size} bytes up and down, equal (sha256 ${want}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
} finally {
  await fs.rm(out, { force: true });
}
