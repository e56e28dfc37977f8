// A raw reader of OpenCode's live stream (`/api/event`), run as a process of its own by bench
// (i): the baseline that tells OpenCode's own limits from the bridge's. It counts the frames
// and the text deltas it reads, with no parsing beyond finding the frames, and prints them as
// JSON when the server ends the stream or when it gets SIGTERM.
//   node bench/raw-live-reader.mjs URL PASSWORD DIRECTORY
const [url, password, directory] = process.argv.slice(2);
const counts = { frames: 0, deltas: 0, endedByServer: false };
const report = () => process.stdout.write(`${JSON.stringify(counts)}\n`, () => process.exit(0));
process.on("SIGTERM", report);
const response = await fetch(`${url}/api/event?directory=${encodeURIComponent(directory)}`, {
  headers: {
    accept: "text/event-stream",
    authorization: `Basic ${Buffer.from(`opencode:${password}`).toString("base64")}`,
  },
});
const decoder = new TextDecoder();
let buffered = "";
for await (const chunk of response.body) {
  buffered += decoder.decode(chunk, { stream: true });
  for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
    const frame = buffered.slice(0, end);
    buffered = buffered.slice(end + 2);
    counts.frames++;
    if (frame.includes('"session.next.text.delta"')) counts.deltas++;
  }
}
counts.endedByServer = true;
report();
