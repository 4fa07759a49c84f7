// Links to inboxd's own resources that answers carry (a message's raw .eml). Built from the public base URL
// (--base-url) by whoever makes the answer: the operations' views and the agent's verify result alike.

export function rawUrlOf(baseUrl: string, inboxId: string, messageId: string): string {
  return `${baseUrl}/v1/inboxes/${inboxId}/messages/${messageId}/raw`;
}
