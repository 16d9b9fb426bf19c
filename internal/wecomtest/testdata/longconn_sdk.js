// Drives the official @wecom/aibot-node-sdk against the fake long-connection
// server (longconn_sdk_test.go). It reacts to what the server pushes and
// prints one JSON line per observation; the Go test compares those lines
// with what the fake recorded. Usage: node longconn_sdk.js SDK_DIR WS_URL BOT_ID SECRET
'use strict';
const [sdkDir, wsUrl, botId, secret] = process.argv.slice(2);
const { WSClient } = require(sdkDir);

const out = (ev, fields) => process.stdout.write(JSON.stringify({ ev, ...fields }) + '\n');
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const client = new WSClient({ botId, secret, wsUrl, heartbeatInterval: 60000, reconnectInterval: 1000, logger: quiet });

// errcode of a rejected reply: the SDK rejects with the raw ack frame.
const code = (err) => (err && typeof err.errcode === 'number' ? err.errcode : String(err && err.message));
const card = (title) => ({
  card_type: 'button_interaction',
  main_title: { title },
  button_list: [{ text: '批准', style: 1, key: 'appr:1:yes' }, { text: '拒绝', style: 3, key: 'appr:1:no' }],
  task_id: 'task-1',
});

client.on('authenticated', () => out('authenticated'));
client.on('message.text', async (frame) => {
  const req_id = frame.headers.req_id;
  if (frame.body.text.content.startsWith('upload ')) {
    await uploadAndSend(frame, frame.body.text.content.slice('upload '.length).split(' '));
    return;
  }
  out('message', { req_id, msgid: frame.body.msgid, text: frame.body.text.content, userid: frame.body.from.userid });
  const sid = 'stream_sdk_1';
  await client.replyStream(frame, sid, '<think>working</think>', false);
  await client.replyStream(frame, sid, '<think>working</think>the answer', true);
  out('stream_acked', { req_id });
  await client.replyTemplateCard(frame, card('Approve?'));
  out('card_acked', { req_id });
  try {
    await client.replyTemplateCard(frame, card('Again?'));
    out('second_card', { errcode: 0 });
  } catch (err) {
    out('second_card', { errcode: code(err) });
  }
  const sent = await client.sendMessage(frame.body.from.userid, { msgtype: 'markdown', markdown: { content: 'pushed' } });
  out('send_acked', { errcode: sent.errcode });
});
// uploadAndSend answers "upload FILE PICTURE": FILE through the upload
// commands and aibot_send_msg, PICTURE in the final stream frame's msg_item.
async function uploadAndSend(frame, [file, picture]) {
  const fs = require('fs');
  const path = require('path');
  const crypto = require('crypto');
  try {
    const up = await client.uploadMedia(fs.readFileSync(file), { type: 'file', filename: path.basename(file) });
    const sent = await client.sendMediaMessage(frame.body.from.userid, 'file', up.media_id);
    out('uploaded', { media_id: up.media_id, type: up.type, errcode: sent.errcode });
  } catch (err) {
    out('uploaded', { errcode: code(err), message: String(err && err.message) });
  }
  const img = fs.readFileSync(picture);
  const item = { msgtype: 'image', image: { base64: img.toString('base64'), md5: crypto.createHash('md5').update(img).digest('hex') } };
  try {
    await client.replyStream(frame, 'stream_sdk_up', 'here', true, [item]);
    out('picture_acked', { errcode: 0 });
  } catch (err) {
    out('picture_acked', { errcode: code(err) });
  }
  try {
    await client.sendMediaMessage(frame.body.from.userid, 'file', 'media_never_issued');
    out('bad_media', { errcode: 0 });
  } catch (err) {
    out('bad_media', { errcode: code(err) });
  }
}
client.on('event.enter_chat', async (frame) => {
  try {
    await client.replyStream(frame, 'stream_sdk_2', 'no stream on an event', true);
    out('enter_stream', { errcode: 0 });
  } catch (err) {
    out('enter_stream', { errcode: code(err) });
  }
  try {
    await client.replyWelcome(frame, { msgtype: 'text', text: { content: 'welcome' } });
    out('welcome', { errcode: 0 });
  } catch (err) {
    out('welcome', { errcode: code(err) });
  }
});
client.on('event.template_card_event', async (frame) => {
  // The SDK's types put event_key at event.event_key; WeCom nests it (§0.1).
  const nested = frame.body.event.template_card_event || {};
  out('card_event', { event_key: nested.event_key, task_id: nested.task_id, flat_event_key: frame.body.event.event_key });
  await client.updateTemplateCard(frame, card('Approved'));
  out('update_acked');
  try {
    await client.updateTemplateCard(frame, card('Approved twice'));
    out('second_update', { errcode: 0 });
  } catch (err) {
    out('second_update', { errcode: code(err) });
  }
});
client.on('event.disconnected_event', () => out('kicked'));
client.on('disconnected', () => {
  const m = client.wsManager;
  out('disconnected', { reconnect_scheduled: !!(m && m.reconnectTimer), manual_close: !!(m && m.isManualClose) });
});
client.on('reconnecting', (attempt) => out('reconnecting', { attempt }));
client.on('error', (err) => out('error', { message: String(err && err.message) }));
process.stdin.on('data', () => {}); // the test ends the run by closing stdin
process.stdin.on('end', () => process.exit(0));
client.connect();
