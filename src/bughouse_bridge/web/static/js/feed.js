// The MQTT-over-WebSocket link to the broker (mqtt.js, loaded as a classic script: window.mqtt).

const TEXT_TOPICS = /\/bpgn$/; // the only non-JSON payload of the contract

// An empty payload clears a retained message: null, which every view takes as "gone".
export function decode(topic, payload) {
  const text = new TextDecoder().decode(payload);
  if (TEXT_TOPICS.test(topic)) return text;
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    console.warn(`ignored a payload on ${topic} that is not JSON: ${text.slice(0, 80)}`);
    return undefined; // not the contract's: ignored, never fatal
  }
}

// Connects, subscribes `topics` on every (re)connect, and hands decoded messages to onMessage.
// onStatus(state, detail) reports "connecting", "connected", "offline", "refused".
export function openFeed({ url, topics, username, password, onMessage, onStatus = () => {} }) {
  onStatus("connecting");
  const client = window.mqtt.connect(url, {
    clientId: `bughouse-web-${Math.random().toString(16).slice(2, 10)}`,
    username: username || undefined,
    password: password || undefined,
    protocolVersion: 4, // 3.1.1: what the embedded broker (amqtt) speaks
    clean: true,
    reconnectPeriod: 1000,
    connectTimeout: 5000,
  });
  client.on("connect", () => {
    onStatus("connected");
    client.subscribe(topics, { qos: 1 });
  });
  client.on("close", () => onStatus("offline"));
  client.on("error", (error) => {
    // A refused login will not get better by retrying: stop and say so.
    if (/not authori[sz]ed|bad user name or password/i.test(error.message)) {
      client.end(true);
      onStatus("refused", error.message);
    }
  });
  client.on("message", (topic, payload, packet) => {
    const data = decode(topic, payload);
    if (data !== undefined) onMessage(topic, data, packet);
  });
  return client;
}
