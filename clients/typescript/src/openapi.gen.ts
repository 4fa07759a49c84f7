// Generated from the OpenAPI document of inboxd 0.2.0 by scripts/clients/generate-types.ts.
// Do not edit: run `npm run clients:types` (test/unit/clients-types.test.ts checks it is current).

export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: {
    path?: string;
    message?: string;
  }[];
};

/** Every operation of the REST API by its operationId: how it is called and what it answers. */
export interface Operations {
  /** Health check — `GET /health` */
  "system.health": {
    method: "GET";
    path: "/health";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      status: "ok";
      name: string;
      version: string;
      db: "ok";
      /** the database engine */
      database: "sqlite" | "postgres";
      /** where raw messages and attachments are kept */
      blobStore: {
        kind: "local" | "s3";
        /** s3 only */
        bucket?: string;
        /** s3 only: the bucket answered a HEAD (checked at most every 5 s) */
        reachable?: boolean;
      };
      uptimeSeconds: number;
    };
  };
  /** Discovery: endpoints, service presets and tool names — `GET /v1` */
  "system.discovery": {
    method: "GET";
    path: "/v1";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      name: string;
      version: string;
      endpoints: {
        method: string;
        path: string;
        operation: string;
        summary: string;
        auth: "none" | "key" | "admin";
      }[];
      services: string[];
      tools: string[];
      /** MCP toolsets: connect to /mcp?toolsets=a,b to be given only their tools */
      toolsets: {
        name: string;
        /** group: one of the spec’s five tool groups (every tool is in one); set: a finer subset */
        kind: "group" | "set";
        description: string;
        tools: string[];
      }[];
      links: {
        openapi: string;
        agent: string;
        health: string;
        mcp: string;
      };
      mail: {
        domains: string[];
        /** STARTTLS of the SMTP listener (the same certificate serves POP3 and IMAP) */
        smtp: {
          /** off: no STARTTLS; auto: a self-signed certificate made by inboxd (--smtp-tls auto); files: --smtp-tls-cert/key */
          starttls: "off" | "auto" | "files";
          /** AUTH is refused before STARTTLS (--smtp-require-tls) */
          requireTls: boolean;
          /** SHA-256 fingerprint of the certificate (AA:BB:…, as openssl x509 -fingerprint -sha256 prints it), to pin it */
          fingerprintSha256: string | null;
          /** The certificate (PEM), to give a client as its only CA */
          certificate: string | null;
          validTo: string | null;
        };
      };
      /** The message checks this server runs (POST /v1/inboxes/:id/messages/:messageId/checks); compat names the date of its caniemail data */
      checks: {
        name: string;
        description: string;
        version: string;
      }[];
    };
  };
  /** OpenAPI 3.0.3 description of this API — `GET /v1/openapi.json` */
  "system.openapi": {
    method: "GET";
    path: "/v1/openapi.json";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: Record<string, unknown>;
  };
  /** Instances of the cluster — `GET /v1/cluster` */
  "system.cluster": {
    method: "GET";
    path: "/v1/cluster";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      /** the id of the instance that answered */
      instance: string;
      heartbeatSeconds: number;
      staleAfterSeconds: number;
      instances: {
        /** the instance id (also the inboxd_instance label of its metrics) */
        id: string;
        hostname: string;
        pid: number;
        version: string;
        startedAt: string;
        uptimeSeconds: number;
        lastHeartbeat: string;
        heartbeatAgeSeconds: number;
        /** up: heartbeat within 30 s; stale: late (died or lost the database); stopped: shut down cleanly */
        state: "up" | "stale" | "stopped";
        /** the once-per-cluster background jobs this instance leads (sweeps, schedulers) */
        roles: string[];
        /** as its /health saw it at its last heartbeat */
        health: {
          status: "ok" | "degraded" | "down";
          reason: string | null;
        };
        /** its model chain for structured extraction (--models) as that instance sees it, with its last probe; the built-in engine is left out */
        models: {
          /** provider/model@host */
          model: string;
          ready: boolean;
          lastProbe: {
            at: string;
            ok: boolean;
            latencyMs: number;
            error: string | null;
          } | null;
        }[];
        /** the instance that answered this request */
        self: boolean;
      }[];
    };
  };
  /** List inboxes — `GET /v1/inboxes` */
  "inboxes.list": {
    method: "GET";
    path: "/v1/inboxes";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Only inboxes with exactly this label */
      label?: string;
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        /** Identifier of the inbox (inb_…) */
        inboxId: string;
        /** The e-mail address to give to a signup form */
        address: string;
        /** CI run id or other grouping label */
        label: string | null;
        ttlMinutes: number;
        createdAt: string;
        expiresAt: string;
        callbackUrl: string | null;
        /** Messages delivered to this inbox so far */
        messagesReceived: number;
        /** Checks run on every arrival (the checks option on create); reported as message.checked on SSE and callbacks */
        checks?: string[];
      }[];
      nextCursor: string | null;
    };
  };
  /** Create an inbox — `POST /v1/inboxes` */
  "inboxes.create": {
    method: "POST";
    path: "/v1/inboxes";
    status: 201;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** CI run id or other grouping label; a scoped key may only use labels with its prefix */
      label?: string;
      /** Minutes until the inbox and its mail are removed (1-10080, default 60) */
      ttlMinutes?: number;
      /** Choose the part before @ (default: random) */
      localPart?: string;
      /** Choose the whole address; its domain must be one this inboxd serves */
      address?: string;
      /** Receives a signed POST for every message (message.received) */
      callbackUrl?: string;
      /** Checks to run on every message that arrives (e.g. ["html","a11y"]; GET /v1/checks lists them), reported as message.checked on SSE and callbacks */
      checks?: string[];
    };
    bodyRequired: false;
    response: {
      /** Identifier of the inbox (inb_…) */
      inboxId: string;
      /** The e-mail address to give to a signup form */
      address: string;
      /** CI run id or other grouping label */
      label: string | null;
      ttlMinutes: number;
      createdAt: string;
      expiresAt: string;
      callbackUrl: string | null;
      /** Messages delivered to this inbox so far */
      messagesReceived: number;
      /** Checks run on every arrival (the checks option on create); reported as message.checked on SSE and callbacks */
      checks?: string[];
      /** With callbackUrl: the whsec_ secret that signs every callback (Standard Webhooks). Shown only here, once */
      callbackSecret?: string;
    };
  };
  /** Delete inboxes in bulk (by label) — `DELETE /v1/inboxes` */
  "inboxes.cleanup": {
    method: "DELETE";
    path: "/v1/inboxes";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Delete the inboxes with exactly this label */
      label?: string;
      /** Delete every inbox in the key’s scope */
      all?: boolean | ("true" | "false");
    };
    body: undefined;
    bodyRequired: false;
    response: {
      deleted: number;
    };
  };
  /** Get an inbox — `GET /v1/inboxes/{id}` */
  "inboxes.get": {
    method: "GET";
    path: "/v1/inboxes/{id}";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      /** Identifier of the inbox (inb_…) */
      inboxId: string;
      /** The e-mail address to give to a signup form */
      address: string;
      /** CI run id or other grouping label */
      label: string | null;
      ttlMinutes: number;
      createdAt: string;
      expiresAt: string;
      callbackUrl: string | null;
      /** Messages delivered to this inbox so far */
      messagesReceived: number;
      /** Checks run on every arrival (the checks option on create); reported as message.checked on SSE and callbacks */
      checks?: string[];
    };
  };
  /** Delete an inbox — `DELETE /v1/inboxes/{id}` */
  "inboxes.delete": {
    method: "DELETE";
    path: "/v1/inboxes/{id}";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      deleted: true;
      inboxId: string;
    };
  };
  /** Wait for a message — `GET /v1/inboxes/{id}/wait` */
  "inboxes.wait": {
    method: "GET";
    path: "/v1/inboxes/{id}/wait";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: {
      /** Seconds to wait (0-120, default 30) */
      timeoutSeconds?: number;
      /** Only messages whose subject contains this (case-insensitive) */
      subjectContains?: string;
      /** Only messages whose sender contains this, e.g. github.com */
      from?: string;
      /** Only messages after this ISO 8601 time or this message id */
      since?: string;
      /** false: leave text, html and headers out of the answer (the summary, code and link stay); default true */
      includeBody?: boolean | ("true" | "false");
    };
    body: undefined;
    bodyRequired: false;
    response: {
      messageId: string;
      inboxId: string;
      from: {
        name: string;
        address: string;
      } | null;
      to: {
        name: string;
        address: string;
      }[];
      cc: {
        name: string;
        address: string;
      }[];
      subject: string;
      receivedAt: string;
      size: number;
      /** The message has attachments (inline parts, images drawn inside the HTML, do not count) */
      hasAttachments: boolean;
      /** Attachments, not counting inline parts (see attachments[].inline) */
      attachmentCount: number;
      hasRaw: boolean;
      rawUrl: string;
      verification: {
        otp: string | null;
        primaryLink: string | null;
      };
      /** How the message arrived: "smtp", "simulate", "webhook:<provider>" (mail injected over an inbound webhook), or "send" (sent from an inboxd inbox) */
      via: string;
      /** "inbound": received by this inbox; "outbound": the copy of a message this inbox sent (never counted as received mail) */
      direction: "inbound" | "outbound";
      /** Labels of the message (README "Labels by rule"): the tag of a plus address (user+tag@…), X-Tags header values, and labels added by the team's label rules; in message lists and reads, and in message.received events (SSE, callbacks) */
      labels?: string[];
      /** The conversation it belongs to (thr_…; GET /v1/inboxes/:id/threads/:threadId); null only for mail not yet in an inbox */
      threadId: string | null;
      /** Read state: true once a POP3 client retrieved it or an IMAP client set \Seen (README "POP3 and IMAP"); false for new mail */
      seen: boolean;
      /** The Date header */
      date: string | null;
      /** The Message-ID header */
      headerMessageId: string | null;
      inReplyTo: string | null;
      references: string[];
      /** The text/plain part; for mail with only HTML, the text derived from the HTML (table rows as lines, cells separated by a tab) — textSource says which */
      text: string | null;
      /** Where text comes from: "part" (a text/plain part), "html" (derived from the HTML part), null (the message has no text) */
      textSource: "part" | "html" | null;
      html: string | null;
      headers: {
        name: string;
        value: string;
      }[];
      attachments: {
        attachmentId: string;
        filename: string | null;
        contentType: string;
        /** The part’s Content-Disposition as the sender wrote it */
        disposition: "attachment" | "inline";
        /** The part’s Content-ID without angle brackets; the HTML draws an inline part with src="cid:<contentId>" */
        contentId: string | null;
        /** true: an inline part — the HTML body refers to its contentId with a cid: URL (a logo, a signature image), whatever its disposition; it is not counted in attachmentCount. Download it from url like any attachment */
        inline: boolean;
        size: number;
        sha256: string;
        url: string;
      }[];
      /** Outbound messages: the delivery state of each recipient (queued, sent, failed with the relay answer); received messages that were released (POST …/release): the state of each release target */
      deliveries?: {
        address: string;
        kind: "to" | "cc" | "bcc";
        /** local: delivered by inboxd itself (a domain it serves); relay: via --smtp-relay */
        route: "local" | "relay";
        /** queued: waiting for (another) relay attempt; sent: stored locally or accepted by the relay; failed: given up */
        state: "queued" | "sent" | "failed";
        attempts: number;
        /** The relay's last answer (or the error talking to it); for local recipients where the copy was stored */
        response: string | null;
        /** Local recipients: the id of the copy stored for them */
        deliveredMessageId: string | null;
        nextAttemptAt: string | null;
      }[];
      /** text, html or headers were cut (longer than the server limit) or left out (includeBody=false) in this answer; GET the message or its rawUrl for all of it */
      truncated: boolean;
    };
  };
  /** List messages — `GET /v1/inboxes/{id}/messages` */
  "messages.list": {
    method: "GET";
    path: "/v1/inboxes/{id}/messages";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: {
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        messageId: string;
        inboxId: string;
        from: {
          name: string;
          address: string;
        } | null;
        to: {
          name: string;
          address: string;
        }[];
        cc: {
          name: string;
          address: string;
        }[];
        subject: string;
        receivedAt: string;
        size: number;
        /** The message has attachments (inline parts, images drawn inside the HTML, do not count) */
        hasAttachments: boolean;
        /** Attachments, not counting inline parts (see attachments[].inline) */
        attachmentCount: number;
        hasRaw: boolean;
        rawUrl: string;
        verification: {
          otp: string | null;
          primaryLink: string | null;
        };
        /** How the message arrived: "smtp", "simulate", "webhook:<provider>" (mail injected over an inbound webhook), or "send" (sent from an inboxd inbox) */
        via: string;
        /** "inbound": received by this inbox; "outbound": the copy of a message this inbox sent (never counted as received mail) */
        direction: "inbound" | "outbound";
        /** Labels of the message (README "Labels by rule"): the tag of a plus address (user+tag@…), X-Tags header values, and labels added by the team's label rules; in message lists and reads, and in message.received events (SSE, callbacks) */
        labels?: string[];
        /** The conversation it belongs to (thr_…; GET /v1/inboxes/:id/threads/:threadId); null only for mail not yet in an inbox */
        threadId: string | null;
        /** Read state: true once a POP3 client retrieved it or an IMAP client set \Seen (README "POP3 and IMAP"); false for new mail */
        seen: boolean;
      }[];
      nextCursor: string | null;
    };
  };
  /** Delete every message of an inbox — `DELETE /v1/inboxes/{id}/messages` */
  "messages.clear": {
    method: "DELETE";
    path: "/v1/inboxes/{id}/messages";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      deleted: number;
    };
  };
  /** Get a message — `GET /v1/inboxes/{id}/messages/{messageId}` */
  "messages.get": {
    method: "GET";
    path: "/v1/inboxes/{id}/messages/{messageId}";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      messageId: string;
      inboxId: string;
      from: {
        name: string;
        address: string;
      } | null;
      to: {
        name: string;
        address: string;
      }[];
      cc: {
        name: string;
        address: string;
      }[];
      subject: string;
      receivedAt: string;
      size: number;
      /** The message has attachments (inline parts, images drawn inside the HTML, do not count) */
      hasAttachments: boolean;
      /** Attachments, not counting inline parts (see attachments[].inline) */
      attachmentCount: number;
      hasRaw: boolean;
      rawUrl: string;
      verification: {
        otp: string | null;
        primaryLink: string | null;
      };
      /** How the message arrived: "smtp", "simulate", "webhook:<provider>" (mail injected over an inbound webhook), or "send" (sent from an inboxd inbox) */
      via: string;
      /** "inbound": received by this inbox; "outbound": the copy of a message this inbox sent (never counted as received mail) */
      direction: "inbound" | "outbound";
      /** Labels of the message (README "Labels by rule"): the tag of a plus address (user+tag@…), X-Tags header values, and labels added by the team's label rules; in message lists and reads, and in message.received events (SSE, callbacks) */
      labels?: string[];
      /** The conversation it belongs to (thr_…; GET /v1/inboxes/:id/threads/:threadId); null only for mail not yet in an inbox */
      threadId: string | null;
      /** Read state: true once a POP3 client retrieved it or an IMAP client set \Seen (README "POP3 and IMAP"); false for new mail */
      seen: boolean;
      /** The Date header */
      date: string | null;
      /** The Message-ID header */
      headerMessageId: string | null;
      inReplyTo: string | null;
      references: string[];
      /** The text/plain part; for mail with only HTML, the text derived from the HTML (table rows as lines, cells separated by a tab) — textSource says which */
      text: string | null;
      /** Where text comes from: "part" (a text/plain part), "html" (derived from the HTML part), null (the message has no text) */
      textSource: "part" | "html" | null;
      html: string | null;
      headers: {
        name: string;
        value: string;
      }[];
      attachments: {
        attachmentId: string;
        filename: string | null;
        contentType: string;
        /** The part’s Content-Disposition as the sender wrote it */
        disposition: "attachment" | "inline";
        /** The part’s Content-ID without angle brackets; the HTML draws an inline part with src="cid:<contentId>" */
        contentId: string | null;
        /** true: an inline part — the HTML body refers to its contentId with a cid: URL (a logo, a signature image), whatever its disposition; it is not counted in attachmentCount. Download it from url like any attachment */
        inline: boolean;
        size: number;
        sha256: string;
        url: string;
      }[];
      /** Outbound messages: the delivery state of each recipient (queued, sent, failed with the relay answer); received messages that were released (POST …/release): the state of each release target */
      deliveries?: {
        address: string;
        kind: "to" | "cc" | "bcc";
        /** local: delivered by inboxd itself (a domain it serves); relay: via --smtp-relay */
        route: "local" | "relay";
        /** queued: waiting for (another) relay attempt; sent: stored locally or accepted by the relay; failed: given up */
        state: "queued" | "sent" | "failed";
        attempts: number;
        /** The relay's last answer (or the error talking to it); for local recipients where the copy was stored */
        response: string | null;
        /** Local recipients: the id of the copy stored for them */
        deliveredMessageId: string | null;
        nextAttemptAt: string | null;
      }[];
    };
  };
  /** Delete a message — `DELETE /v1/inboxes/{id}/messages/{messageId}` */
  "messages.delete": {
    method: "DELETE";
    path: "/v1/inboxes/{id}/messages/{messageId}";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      deleted: true;
      messageId: string;
    };
  };
  /** Mark a message read or unread — `PATCH /v1/inboxes/{id}/messages/{messageId}` */
  "messages.mark": {
    method: "PATCH";
    path: "/v1/inboxes/{id}/messages/{messageId}";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
    };
    query: Record<string, never>;
    body: {
      /** true: read; false: unread */
      seen: boolean;
    };
    bodyRequired: true;
    response: {
      messageId: string;
      seen: boolean;
    };
  };
  /** Get the raw message (.eml) — `GET /v1/inboxes/{id}/messages/{messageId}/raw` */
  "messages.raw": {
    method: "GET";
    path: "/v1/inboxes/{id}/messages/{messageId}/raw";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      messageId: string;
      inboxId: string;
      contentType: "message/rfc822";
      size: number;
      sha256: string;
      receivedAt: string;
      envelope: {
        mailFrom: string | null;
        rcptTo: string;
      };
      rawUrl: string;
    };
  };
  /** List attachments — `GET /v1/inboxes/{id}/messages/{messageId}/attachments` */
  "messages.attachments": {
    method: "GET";
    path: "/v1/inboxes/{id}/messages/{messageId}/attachments";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        attachmentId: string;
        filename: string | null;
        contentType: string;
        /** The part’s Content-Disposition as the sender wrote it */
        disposition: "attachment" | "inline";
        /** The part’s Content-ID without angle brackets; the HTML draws an inline part with src="cid:<contentId>" */
        contentId: string | null;
        /** true: an inline part — the HTML body refers to its contentId with a cid: URL (a logo, a signature image), whatever its disposition; it is not counted in attachmentCount. Download it from url like any attachment */
        inline: boolean;
        size: number;
        sha256: string;
        url: string;
      }[];
      nextCursor: string | null;
    };
  };
  /** Download an attachment — `GET /v1/inboxes/{id}/messages/{messageId}/attachments/{attachmentId}` */
  "messages.attachment": {
    method: "GET";
    path: "/v1/inboxes/{id}/messages/{messageId}/attachments/{attachmentId}";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
      /** Attachment id (att_…) */
      attachmentId: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      attachmentId: string;
      filename: string | null;
      contentType: string;
      /** The part’s Content-Disposition as the sender wrote it */
      disposition: "attachment" | "inline";
      /** The part’s Content-ID without angle brackets; the HTML draws an inline part with src="cid:<contentId>" */
      contentId: string | null;
      /** true: an inline part — the HTML body refers to its contentId with a cid: URL (a logo, a signature image), whatever its disposition; it is not counted in attachmentCount. Download it from url like any attachment */
      inline: boolean;
      size: number;
      sha256: string;
      url: string;
    };
  };
  /** List the message checks — `GET /v1/checks` */
  "checks.list": {
    method: "GET";
    path: "/v1/checks";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        name: string;
        description: string;
        version: string;
        rules: string[];
      }[];
    };
  };
  /** Check mail without sending it — `POST /v1/checks` */
  "checks.supplied": {
    method: "POST";
    path: "/v1/checks";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: Blob | Uint8Array | string;
    bodyRequired: true;
    response: {
      messageId: string | null;
      /** sha256 of the raw message */
      contentHash: string;
      /** Engine and check rule/data versions the report was made with */
      dataVersion: string;
      checkedAt: string;
      /** True when the same content was already checked under the same versions and options */
      cached?: boolean;
      options: {
        checks: string[];
        clients: string[];
        links: {
          mode: "static" | "reach";
          includeVerificationLinks: boolean;
        };
      };
      checks: Record<string, {
          /** failed: an error finding; error: the check could not answer (see reason) */
          status: "passed" | "failed" | "skipped" | "error";
          score?: number;
          reason?: string;
          durationMs: number;
          findings: {
            check: string;
            /** Stable rule id within the check (svc_explain_finding explains it) */
            rule: string;
            severity: "error" | "warning" | "info";
            title: string;
            detail: string;
            location?: {
              part?: "html" | "text" | "headers" | "envelope";
              /** 1-based line in the decoded HTML (or text), as the console’s source view shows it */
              line?: number;
              column?: number;
              selector?: string;
            };
            clients?: string[];
            evidence?: string;
            docs?: string;
            /** e.g. environmental (a spam rule that reflects the test set-up), truncated */
            tags?: string[];
          }[];
          /** Check-specific figures; each number or string is a --fail-on metric (<check>.<key>) */
          meta?: Record<string, unknown>;
        }>;
      summary: {
        status: "passed" | "failed" | "error";
        errors: number;
        warnings: number;
        info: number;
        findings: number;
        checks: Record<string, number>;
        durationMs: number;
      };
    };
  };
  /** Explain a check rule — `GET /v1/checks/{check}/rules/{rule}` */
  "checks.explain": {
    method: "GET";
    path: "/v1/checks/{check}/rules/{rule}";
    status: 200;
    pathParams: {
      /** The finding’s check, e.g. html, a11y, text, compat */
      check: string;
      /** The finding’s rule, e.g. gmail-clipping, img-missing-alt */
      rule: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      check: string;
      rule: string;
      /** False when the check does not document the rule (the answer then says less) */
      known: boolean;
      title: string;
      why: string;
      fix: string;
      docs?: string;
    };
  };
  /** Get the last check report of a message — `GET /v1/inboxes/{id}/messages/{messageId}/checks` */
  "checks.last": {
    method: "GET";
    path: "/v1/inboxes/{id}/messages/{messageId}/checks";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      messageId: string | null;
      /** sha256 of the raw message */
      contentHash: string;
      /** Engine and check rule/data versions the report was made with */
      dataVersion: string;
      checkedAt: string;
      /** True when the same content was already checked under the same versions and options */
      cached?: boolean;
      options: {
        checks: string[];
        clients: string[];
        links: {
          mode: "static" | "reach";
          includeVerificationLinks: boolean;
        };
      };
      checks: Record<string, {
          /** failed: an error finding; error: the check could not answer (see reason) */
          status: "passed" | "failed" | "skipped" | "error";
          score?: number;
          reason?: string;
          durationMs: number;
          findings: {
            check: string;
            /** Stable rule id within the check (svc_explain_finding explains it) */
            rule: string;
            severity: "error" | "warning" | "info";
            title: string;
            detail: string;
            location?: {
              part?: "html" | "text" | "headers" | "envelope";
              /** 1-based line in the decoded HTML (or text), as the console’s source view shows it */
              line?: number;
              column?: number;
              selector?: string;
            };
            clients?: string[];
            evidence?: string;
            docs?: string;
            /** e.g. environmental (a spam rule that reflects the test set-up), truncated */
            tags?: string[];
          }[];
          /** Check-specific figures; each number or string is a --fail-on metric (<check>.<key>) */
          meta?: Record<string, unknown>;
        }>;
      summary: {
        status: "passed" | "failed" | "error";
        errors: number;
        warnings: number;
        info: number;
        findings: number;
        checks: Record<string, number>;
        durationMs: number;
      };
    };
  };
  /** Check a message — `POST /v1/inboxes/{id}/messages/{messageId}/checks` */
  "checks.run": {
    method: "POST";
    path: "/v1/inboxes/{id}/messages/{messageId}/checks";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
    };
    query: Record<string, never>;
    body: {
      /** Checks to run (default: all this server has; GET /v1/checks lists them), e.g. ["html","a11y","text"] */
      checks?: string[];
      /** compat: client ids or globs, e.g. ["gmail.*","outlook.windows"] */
      clients?: string[];
      /** links: static (no network, the default) or reach mode, and whether reach follows verification links */
      links?: {
        /** static (default: no network) or reach (follow links to --link-check-hosts only) */
        mode?: "static" | "reach";
        /** reach: also follow one-time verification links (a GET can spend the token) */
        includeVerificationLinks?: boolean;
      };
    };
    bodyRequired: false;
    response: {
      messageId: string | null;
      /** sha256 of the raw message */
      contentHash: string;
      /** Engine and check rule/data versions the report was made with */
      dataVersion: string;
      checkedAt: string;
      /** True when the same content was already checked under the same versions and options */
      cached?: boolean;
      options: {
        checks: string[];
        clients: string[];
        links: {
          mode: "static" | "reach";
          includeVerificationLinks: boolean;
        };
      };
      checks: Record<string, {
          /** failed: an error finding; error: the check could not answer (see reason) */
          status: "passed" | "failed" | "skipped" | "error";
          score?: number;
          reason?: string;
          durationMs: number;
          findings: {
            check: string;
            /** Stable rule id within the check (svc_explain_finding explains it) */
            rule: string;
            severity: "error" | "warning" | "info";
            title: string;
            detail: string;
            location?: {
              part?: "html" | "text" | "headers" | "envelope";
              /** 1-based line in the decoded HTML (or text), as the console’s source view shows it */
              line?: number;
              column?: number;
              selector?: string;
            };
            clients?: string[];
            evidence?: string;
            docs?: string;
            /** e.g. environmental (a spam rule that reflects the test set-up), truncated */
            tags?: string[];
          }[];
          /** Check-specific figures; each number or string is a --fail-on metric (<check>.<key>) */
          meta?: Record<string, unknown>;
        }>;
      summary: {
        status: "passed" | "failed" | "error";
        errors: number;
        warnings: number;
        info: number;
        findings: number;
        checks: Record<string, number>;
        durationMs: number;
      };
    };
  };
  /** Render a message to PNG (chromium) — `GET /v1/inboxes/{id}/messages/{messageId}/render` */
  "messages.render": {
    method: "GET";
    path: "/v1/inboxes/{id}/messages/{messageId}/render";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
    };
    query: {
      /** Viewport width in CSS pixels (240-1920, default 800): 375 phone, 768 tablet, 1280 desktop */
      width?: number;
      /** on (default): the mail’s inline cid: images; off: none. Remote images are never fetched */
      images?: "on" | "off";
      /** light or dark: the prefers-color-scheme the mail sees */
      theme?: "light" | "dark";
    };
    body: undefined;
    bodyRequired: false;
    response: Record<string, never>;
  };
  /** Compare the renderings of two messages — `GET /v1/inboxes/{id}/messages/{messageId}/render/compare` */
  "messages.render_compare": {
    method: "GET";
    path: "/v1/inboxes/{id}/messages/{messageId}/render/compare";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
    };
    query: {
      /** The other message (msg_…) */
      with: string;
      /** The other message’s inbox, when it is not this one */
      withInbox?: string;
      /** Viewport width in CSS pixels (240-1920, default 800): 375 phone, 768 tablet, 1280 desktop */
      width?: number;
      /** on (default): the mail’s inline cid: images; off: none. Remote images are never fetched */
      images?: "on" | "off";
      /** light or dark: the prefers-color-scheme the mail sees */
      theme?: "light" | "dark";
    };
    body: undefined;
    bodyRequired: false;
    response: {
      a: {
        messageId: string;
        width: number;
        height: number;
        truncated: boolean;
        blocked: number;
      };
      b: {
        messageId: string;
        width: number;
        height: number;
        truncated: boolean;
        blocked: number;
      };
      differentPixels: number;
      totalPixels: number;
      /** differentPixels / totalPixels */
      ratio: number;
    };
  };
  /** Send a message from an inbox — `POST /v1/inboxes/{id}/send` */
  "messages.send": {
    method: "POST";
    path: "/v1/inboxes/{id}/send";
    status: 202;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** Recipient address, or a list ("user@example.com" or "Name <user@example.com>") */
      to: string | string[];
      /** Cc recipients (same forms as to) */
      cc?: string | string[];
      /** Bcc recipients: they get the message but are not written into it */
      bcc?: string | string[];
      /** Subject line */
      subject?: string;
      /** Reply-To address(es) for answers to this message */
      replyTo?: string | string[];
      /** Plain-text body */
      text?: string;
      /** HTML body (give text too for clients that show no HTML) */
      html?: string;
      /** Files to attach */
      attachments?: {
        /** File name shown to the recipient, e.g. "invoice.pdf" */
        filename: string;
        /** MIME type, e.g. application/pdf (default: from the file name, else application/octet-stream) */
        contentType?: string;
        /** The file bytes, base64-encoded */
        contentBase64: string;
      }[];
    };
    bodyRequired: true;
    response: {
      /** Id of the sent message's copy stored in this inbox (direction outbound) */
      messageId: string;
      inboxId: string;
      /** Always the inbox's own address */
      from: string;
      subject: string;
      /** The Message-ID header of the sent message */
      rfcMessageId: string;
      /** In-Reply-To header (replies) */
      inReplyTo: string | null;
      /** References header (replies): the thread so far */
      references: string[];
      /** Each recipient and its delivery state */
      recipients: {
        address: string;
        kind: "to" | "cc" | "bcc";
        /** local: delivered by inboxd itself (a domain it serves); relay: via --smtp-relay */
        route: "local" | "relay";
        /** queued: waiting for (another) relay attempt; sent: stored locally or accepted by the relay; failed: given up */
        state: "queued" | "sent" | "failed";
        attempts: number;
        /** The relay's last answer (or the error talking to it); for local recipients where the copy was stored */
        response: string | null;
        /** Local recipients: the id of the copy stored for them */
        deliveredMessageId: string | null;
        nextAttemptAt: string | null;
      }[];
    };
  };
  /** Reply to a received message — `POST /v1/inboxes/{id}/reply` */
  "messages.reply": {
    method: "POST";
    path: "/v1/inboxes/{id}/reply";
    status: 202;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** The received message (msg_…) of this inbox to answer */
      messageId: string;
      /** Answer every participant (From, To, Cc of the original) but this inbox; default: only the sender */
      replyAll?: boolean;
      /** Plain-text body */
      text?: string;
      /** HTML body (give text too for clients that show no HTML) */
      html?: string;
      /** Files to attach */
      attachments?: {
        /** File name shown to the recipient, e.g. "invoice.pdf" */
        filename: string;
        /** MIME type, e.g. application/pdf (default: from the file name, else application/octet-stream) */
        contentType?: string;
        /** The file bytes, base64-encoded */
        contentBase64: string;
      }[];
    };
    bodyRequired: true;
    response: {
      /** Id of the sent message's copy stored in this inbox (direction outbound) */
      messageId: string;
      inboxId: string;
      /** Always the inbox's own address */
      from: string;
      subject: string;
      /** The Message-ID header of the sent message */
      rfcMessageId: string;
      /** In-Reply-To header (replies) */
      inReplyTo: string | null;
      /** References header (replies): the thread so far */
      references: string[];
      /** Each recipient and its delivery state */
      recipients: {
        address: string;
        kind: "to" | "cc" | "bcc";
        /** local: delivered by inboxd itself (a domain it serves); relay: via --smtp-relay */
        route: "local" | "relay";
        /** queued: waiting for (another) relay attempt; sent: stored locally or accepted by the relay; failed: given up */
        state: "queued" | "sent" | "failed";
        attempts: number;
        /** The relay's last answer (or the error talking to it); for local recipients where the copy was stored */
        response: string | null;
        /** Local recipients: the id of the copy stored for them */
        deliveredMessageId: string | null;
        nextAttemptAt: string | null;
      }[];
    };
  };
  /** Release a captured message to real addresses — `POST /v1/inboxes/{id}/messages/{messageId}/release` */
  "messages.release": {
    method: "POST";
    path: "/v1/inboxes/{id}/messages/{messageId}/release";
    status: 202;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
    };
    query: Record<string, never>;
    body: {
      /** Where to send it: an address or a list, each allowed by the operator (--release-allow) */
      to: string | string[];
    };
    bodyRequired: true;
    response: {
      messageId: string;
      inboxId: string;
      /** Each target, queued for the relay (GET the message later: deliveries shows sent or failed) */
      recipients: {
        address: string;
        kind: "to" | "cc" | "bcc";
        /** local: delivered by inboxd itself (a domain it serves); relay: via --smtp-relay */
        route: "local" | "relay";
        /** queued: waiting for (another) relay attempt; sent: stored locally or accepted by the relay; failed: given up */
        state: "queued" | "sent" | "failed";
        attempts: number;
        /** The relay's last answer (or the error talking to it); for local recipients where the copy was stored */
        response: string | null;
        /** Local recipients: the id of the copy stored for them */
        deliveredMessageId: string | null;
        nextAttemptAt: string | null;
      }[];
    };
  };
  /** List label rules — `GET /v1/label-rules` */
  "labels.list_rules": {
    method: "GET";
    path: "/v1/label-rules";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        ruleId: string;
        name: string;
        query: string;
        labels: string[];
        /** Made by a key with this label prefix: applies only to inboxes whose label starts with it */
        labelPrefix: string | null;
        createdAt: string;
        updatedAt: string;
      }[];
      nextCursor: null;
    };
  };
  /** Create a label rule — `POST /v1/label-rules` */
  "labels.create_rule": {
    method: "POST";
    path: "/v1/label-rules";
    status: 201;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** A name for people (default: the query) */
      name?: string;
      /** Which mail it labels, in the search language: words, "a phrase", from:, to:, subject:, label:, has:attachment|code|link, OR, -term */
      query: string;
      /** Labels added to each matching message (1-10; stored lower case) */
      labels: string[];
    };
    bodyRequired: true;
    response: {
      ruleId: string;
      name: string;
      query: string;
      labels: string[];
      /** Made by a key with this label prefix: applies only to inboxes whose label starts with it */
      labelPrefix: string | null;
      createdAt: string;
      updatedAt: string;
    };
  };
  /** Delete a label rule — `DELETE /v1/label-rules/{id}` */
  "labels.delete_rule": {
    method: "DELETE";
    path: "/v1/label-rules/{id}";
    status: 200;
    pathParams: {
      /** Label rule id (lbr_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      ruleId: string;
      deleted: true;
    };
  };
  /** Change a label rule — `PATCH /v1/label-rules/{id}` */
  "labels.update_rule": {
    method: "PATCH";
    path: "/v1/label-rules/{id}";
    status: 200;
    pathParams: {
      /** Label rule id (lbr_…) */
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** A name for people (default: the query) */
      name?: string;
      /** Which mail it labels, in the search language: words, "a phrase", from:, to:, subject:, label:, has:attachment|code|link, OR, -term */
      query?: string;
      /** Labels added to each matching message (1-10; stored lower case) */
      labels?: string[];
    };
    bodyRequired: false;
    response: {
      ruleId: string;
      name: string;
      query: string;
      labels: string[];
      /** Made by a key with this label prefix: applies only to inboxes whose label starts with it */
      labelPrefix: string | null;
      createdAt: string;
      updatedAt: string;
    };
  };
  /** List threads — `GET /v1/inboxes/{id}/threads` */
  "threads.list": {
    method: "GET";
    path: "/v1/inboxes/{id}/threads";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: {
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        /** Identifier of the thread (thr_…) */
        threadId: string;
        inboxId: string;
        /** Subject of the conversation’s first message */
        subject: string;
        messageCount: number;
        /** Sender and recipient addresses seen in the thread (lower-case, at most 50) */
        participants: string[];
        firstMessageAt: string;
        /** When its newest message arrived (lists are ordered by this, newest first) */
        lastMessageAt: string;
        /** The newest message (msg_…) */
        lastMessageId: string | null;
        /** The start of the newest message’s text, quoted lines left out */
        snippet: string;
      }[];
      nextCursor: string | null;
    };
  };
  /** Get a thread — `GET /v1/inboxes/{id}/threads/{threadId}` */
  "threads.get": {
    method: "GET";
    path: "/v1/inboxes/{id}/threads/{threadId}";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Thread id (thr_…), from a thread list or a message’s threadId */
      threadId: string;
    };
    query: {
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      /** Identifier of the thread (thr_…) */
      threadId: string;
      inboxId: string;
      /** Subject of the conversation’s first message */
      subject: string;
      messageCount: number;
      /** Sender and recipient addresses seen in the thread (lower-case, at most 50) */
      participants: string[];
      firstMessageAt: string;
      /** When its newest message arrived (lists are ordered by this, newest first) */
      lastMessageAt: string;
      /** The newest message (msg_…) */
      lastMessageId: string | null;
      /** The start of the newest message’s text, quoted lines left out */
      snippet: string;
      /** Its messages, oldest first (a page of them: see nextCursor) */
      messages: {
        messageId: string;
        inboxId: string;
        from: {
          name: string;
          address: string;
        } | null;
        to: {
          name: string;
          address: string;
        }[];
        cc: {
          name: string;
          address: string;
        }[];
        subject: string;
        receivedAt: string;
        size: number;
        /** The message has attachments (inline parts, images drawn inside the HTML, do not count) */
        hasAttachments: boolean;
        /** Attachments, not counting inline parts (see attachments[].inline) */
        attachmentCount: number;
        hasRaw: boolean;
        rawUrl: string;
        verification: {
          otp: string | null;
          primaryLink: string | null;
        };
        /** How the message arrived: "smtp", "simulate", "webhook:<provider>" (mail injected over an inbound webhook), or "send" (sent from an inboxd inbox) */
        via: string;
        /** "inbound": received by this inbox; "outbound": the copy of a message this inbox sent (never counted as received mail) */
        direction: "inbound" | "outbound";
        /** Labels of the message (README "Labels by rule"): the tag of a plus address (user+tag@…), X-Tags header values, and labels added by the team's label rules; in message lists and reads, and in message.received events (SSE, callbacks) */
        labels?: string[];
        /** The conversation it belongs to (thr_…; GET /v1/inboxes/:id/threads/:threadId); null only for mail not yet in an inbox */
        threadId: string | null;
        /** Read state: true once a POP3 client retrieved it or an IMAP client set \Seen (README "POP3 and IMAP"); false for new mail */
        seen: boolean;
      }[];
      /** Pass as cursor for the thread’s next messages; null when all are shown */
      nextCursor: string | null;
    };
  };
  /** Recent threads — `GET /v1/console/threads` */
  "console.threads": {
    method: "GET";
    path: "/v1/console/threads";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        /** Identifier of the thread (thr_…) */
        threadId: string;
        inboxId: string;
        /** Subject of the conversation’s first message */
        subject: string;
        messageCount: number;
        /** Sender and recipient addresses seen in the thread (lower-case, at most 50) */
        participants: string[];
        firstMessageAt: string;
        /** When its newest message arrived (lists are ordered by this, newest first) */
        lastMessageAt: string;
        /** The newest message (msg_…) */
        lastMessageId: string | null;
        /** The start of the newest message’s text, quoted lines left out */
        snippet: string;
        inbox: {
          inboxId: string;
          address: string;
          label: string | null;
        };
      }[];
      nextCursor: string | null;
    };
  };
  /** Search the messages of an inbox — `GET /v1/inboxes/{id}/search` */
  "messages.search": {
    method: "GET";
    path: "/v1/inboxes/{id}/search";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: {
      /** The query: words, "exact phrases", -excluded, a OR b, from: to: subject: label: has:attachment has:code has:link before: after: (2026-11-20, 2026-11-20T14:00, 14:00 or an age such as 2h, 3d) */
      q: string;
      /** keyword (default; bm25), semantic (meaning, needs --embeddings) or hybrid (both, fused); without a model: keyword */
      mode?: "keyword" | "semantic" | "hybrid";
      /** Results per page, 1-100 (default 20) */
      limit?: number;
      /** nextCursor of the previous page (same q and mode) */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        messageId: string;
        inboxId: string;
        from: {
          name: string;
          address: string;
        } | null;
        to: {
          name: string;
          address: string;
        }[];
        cc: {
          name: string;
          address: string;
        }[];
        subject: string;
        receivedAt: string;
        size: number;
        /** The message has attachments (inline parts, images drawn inside the HTML, do not count) */
        hasAttachments: boolean;
        /** Attachments, not counting inline parts (see attachments[].inline) */
        attachmentCount: number;
        hasRaw: boolean;
        rawUrl: string;
        verification: {
          otp: string | null;
          primaryLink: string | null;
        };
        /** How the message arrived: "smtp", "simulate", "webhook:<provider>" (mail injected over an inbound webhook), or "send" (sent from an inboxd inbox) */
        via: string;
        /** "inbound": received by this inbox; "outbound": the copy of a message this inbox sent (never counted as received mail) */
        direction: "inbound" | "outbound";
        /** Labels of the message (README "Labels by rule"): the tag of a plus address (user+tag@…), X-Tags header values, and labels added by the team's label rules; in message lists and reads, and in message.received events (SSE, callbacks) */
        labels?: string[];
        /** The conversation it belongs to (thr_…; GET /v1/inboxes/:id/threads/:threadId); null only for mail not yet in an inbox */
        threadId: string | null;
        /** Read state: true once a POP3 client retrieved it or an IMAP client set \Seen (README "POP3 and IMAP"); false for new mail */
        seen: boolean;
        /** A passage of the body (or the subject) with the matched words marked «like this» */
        snippet: string | null;
        /** The address of the inbox the message is in */
        inboxAddress: string | null;
        /** Relevance in this answer (higher is better): -bm25 for keyword, cosine for semantic, fused rank for hybrid */
        score: number;
      }[];
      nextCursor: string | null;
      /** The ranking used: keyword when no embeddings model could be used */
      mode: "keyword" | "semantic" | "hybrid";
      /** Whether the meaning of the query took part (an embeddings model was configured and answered) */
      semantic: boolean;
      /** Set when the search ran out of its time budget mid-scan: the items are the newest matches found so far, and why */
      partial: {
        reason: string;
      } | null;
    };
  };
  /** Search every inbox in the key’s scope — `GET /v1/search` */
  "messages.search_all": {
    method: "GET";
    path: "/v1/search";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** The query: words, "exact phrases", -excluded, a OR b, from: to: subject: label: has:attachment has:code has:link before: after: (2026-11-20, 2026-11-20T14:00, 14:00 or an age such as 2h, 3d) */
      q: string;
      /** Search only this inbox (inb_…); omit to search every inbox in scope */
      inboxId?: string;
      /** Only inboxes with exactly this label */
      label?: string;
      /** keyword (default; bm25), semantic (meaning, needs --embeddings) or hybrid (both, fused); without a model: keyword */
      mode?: "keyword" | "semantic" | "hybrid";
      /** Results per page, 1-100 (default 20) */
      limit?: number;
      /** nextCursor of the previous page (same q and mode) */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        messageId: string;
        inboxId: string;
        from: {
          name: string;
          address: string;
        } | null;
        to: {
          name: string;
          address: string;
        }[];
        cc: {
          name: string;
          address: string;
        }[];
        subject: string;
        receivedAt: string;
        size: number;
        /** The message has attachments (inline parts, images drawn inside the HTML, do not count) */
        hasAttachments: boolean;
        /** Attachments, not counting inline parts (see attachments[].inline) */
        attachmentCount: number;
        hasRaw: boolean;
        rawUrl: string;
        verification: {
          otp: string | null;
          primaryLink: string | null;
        };
        /** How the message arrived: "smtp", "simulate", "webhook:<provider>" (mail injected over an inbound webhook), or "send" (sent from an inboxd inbox) */
        via: string;
        /** "inbound": received by this inbox; "outbound": the copy of a message this inbox sent (never counted as received mail) */
        direction: "inbound" | "outbound";
        /** Labels of the message (README "Labels by rule"): the tag of a plus address (user+tag@…), X-Tags header values, and labels added by the team's label rules; in message lists and reads, and in message.received events (SSE, callbacks) */
        labels?: string[];
        /** The conversation it belongs to (thr_…; GET /v1/inboxes/:id/threads/:threadId); null only for mail not yet in an inbox */
        threadId: string | null;
        /** Read state: true once a POP3 client retrieved it or an IMAP client set \Seen (README "POP3 and IMAP"); false for new mail */
        seen: boolean;
        /** A passage of the body (or the subject) with the matched words marked «like this» */
        snippet: string | null;
        /** The address of the inbox the message is in */
        inboxAddress: string | null;
        /** Relevance in this answer (higher is better): -bm25 for keyword, cosine for semantic, fused rank for hybrid */
        score: number;
      }[];
      nextCursor: string | null;
      /** The ranking used: keyword when no embeddings model could be used */
      mode: "keyword" | "semantic" | "hybrid";
      /** Whether the meaning of the query took part (an embeddings model was configured and answered) */
      semantic: boolean;
      /** Set when the search ran out of its time budget mid-scan: the items are the newest matches found so far, and why */
      partial: {
        reason: string;
      } | null;
    };
  };
  /** Agent hub: presets, recipes, the verify contract, test and self-test URLs — `GET /v1/agent` */
  "agent.hub": {
    method: "GET";
    path: "/v1/agent";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      name: string;
      version: string;
      services: string[];
      recipesUrl: string;
      verify: {
        endpoint: string;
        rules: string[];
        statuses: string[];
        actionTypes: string[];
      };
      simulateScenarios: string[];
      testUrl: string;
      autotestUrl: string;
      mcp: string;
      tools: string[];
    };
  };
  /** Verify a signup: get an address, wait for the mail, extract the code or link — `POST /v1/agent/verify` */
  "agent.verify": {
    method: "POST";
    path: "/v1/agent/verify";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** One of the 25 presets: github, google, microsoft, apple, amazon, slack, discord, notion, stripe, shopify, atlassian, dropbox, linkedin, x, facebook, instagram, airbnb, uber, netflix, spotify, zoom, openai, figma, vercel, paypal */
      service?: "github" | "google" | "microsoft" | "apple" | "amazon" | "slack" | "discord" | "notion" | "stripe" | "shopify" | "atlassian" | "dropbox" | "linkedin" | "x" | "facebook" | "instagram" | "airbnb" | "uber" | "netflix" | "spotify" | "zoom" | "openai" | "figma" | "vercel" | "paypal";
      /** Inbox id (inb_…) */
      inboxId?: string;
      /** Seconds to wait for the mail (1-120, default 60) */
      timeoutSeconds?: number;
      /** Remove the inbox after answering (default false) */
      deleteAfter?: boolean;
      /** Choose the part before @ (default: random) */
      localPart?: string;
      /** Choose the whole address; its domain must be one this inboxd serves */
      address?: string;
      /** CI run id or other grouping label; a scoped key may only use labels with its prefix */
      label?: string;
      /** Sets the label to agent-{runId} */
      runId?: string;
      /** Minutes until the inbox and its mail are removed (1-10080, default 60) */
      ttlMinutes?: number;
      /** Only mail whose subject contains this (case-insensitive) */
      subjectContains?: string;
      /** Only mail whose sender contains this, e.g. github.com */
      expectFrom?: string;
      /** Consider only mail after this ISO 8601 time or this message id (msg_…) of the inbox. Default: mail that arrived after the inbox was created and is newer than the message verify last returned on this inbox; a time before the inbox was created also takes mail sent to the address earlier (claimed by the inbox) */
      since?: string;
    };
    bodyRequired: false;
    response: {
      /** verified = a code or link was found; received = mail arrived without one; awaiting_message = inbox made, nothing yet; timeout */
      status: "awaiting_message" | "verified" | "received" | "timeout";
      service: string | null;
      email: {
        inboxId: string;
        /** Type this into the external signup form */
        address: string;
      };
      verification: {
        otp: string | null;
        primaryLink: string | null;
        /** Target decoded from a click-tracking wrapper, when the wrapper carries it */
        primaryLinkUnwrapped: string | null;
        candidates: {
          kind: "otp" | "link";
          value: string;
          confidence: number;
          source: "subject" | "text" | "html";
          unwrapped?: string;
        }[];
      };
      agent: {
        primaryAction: {
          type: "use_address" | "otp" | "link" | "manual" | "retry";
          value: string;
          instruction: string;
        };
      };
      message: {
        messageId: string;
        /** The sender, the same shape as in messages: {name, address} */
        from: {
          name: string;
          address: string;
        } | null;
        subject: string;
        receivedAt: string;
      } | null;
      hasRaw: boolean;
      rawUrl: string | null;
      hasAttachments: boolean;
      attachmentCount: number;
      /** The inbox was removed after this call (deleteAfter) */
      deleted: boolean;
      /** Only on timeout: the mail did arrive, and its result was handed out by an earlier call; verify again with this since to get it again */
      alreadyHandedOut?: {
        messageId: string;
        subject: string;
        receivedAt: string;
        /** When an earlier verify call handed out its code or link */
        handedOutAt: string;
        /** Pass this as since to get that result again */
        since: string;
      };
      /** Only when this call created the inbox with a callbackUrl: the whsec_ secret that signs its callbacks, shown once */
      callbackSecret?: string;
    };
  };
  /** List the service recipes — `GET /v1/agent/recipes` */
  "agent.recipes": {
    method: "GET";
    path: "/v1/agent/recipes";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        service: string;
        displayName: string;
        senderDomains: string[];
        sends: "code" | "link" | "both";
        code: {
          lengths: number[];
          alphabet: "digits" | "alphanumeric";
          prefix?: string;
        } | null;
        summary: string;
        steps: string[];
      }[];
      nextCursor: null;
    };
  };
  /** Get the recipe of one service preset — `GET /v1/agent/recipes/{service}` */
  "agent.recipe": {
    method: "GET";
    path: "/v1/agent/recipes/{service}";
    status: 200;
    pathParams: {
      /** One of the 25 presets: github, google, microsoft, apple, amazon, slack, discord, notion, stripe, shopify, atlassian, dropbox, linkedin, x, facebook, instagram, airbnb, uber, netflix, spotify, zoom, openai, figma, vercel, paypal */
      service: "github" | "google" | "microsoft" | "apple" | "amazon" | "slack" | "discord" | "notion" | "stripe" | "shopify" | "atlassian" | "dropbox" | "linkedin" | "x" | "facebook" | "instagram" | "airbnb" | "uber" | "netflix" | "spotify" | "zoom" | "openai" | "figma" | "vercel" | "paypal";
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      service: string;
      displayName: string;
      senderDomains: string[];
      sends: "code" | "link" | "both";
      code: {
        lengths: number[];
        alphabet: "digits" | "alphanumeric";
        prefix?: string;
      } | null;
      summary: string;
      steps: string[];
    };
  };
  /** Self-test: create an inbox, simulate mail, verify, clean up — `GET /v1/agent/autotest` */
  "agent.autotest": {
    method: "GET";
    path: "/v1/agent/autotest";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      pass: boolean;
      version: string;
      totalMs: number;
      steps: {
        name: string;
        ok: boolean;
        ms: number;
        detail: string;
      }[];
    };
  };
  /** Open an inbox and wait for its verification mail in one call — `POST /v1/inboxes/open` */
  "inboxes.open": {
    method: "POST";
    path: "/v1/inboxes/open";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** One of the 25 presets: github, google, microsoft, apple, amazon, slack, discord, notion, stripe, shopify, atlassian, dropbox, linkedin, x, facebook, instagram, airbnb, uber, netflix, spotify, zoom, openai, figma, vercel, paypal */
      service?: "github" | "google" | "microsoft" | "apple" | "amazon" | "slack" | "discord" | "notion" | "stripe" | "shopify" | "atlassian" | "dropbox" | "linkedin" | "x" | "facebook" | "instagram" | "airbnb" | "uber" | "netflix" | "spotify" | "zoom" | "openai" | "figma" | "vercel" | "paypal";
      /** Only mail whose sender contains this, e.g. github.com */
      expectFrom?: string;
      /** Seconds to wait for the mail (1-120, default 60) */
      timeoutSeconds?: number;
      /** Minutes until the inbox and its mail are removed (1-10080, default 60) */
      ttlMinutes?: number;
      /** Remove the inbox after answering (default true) */
      deleteAfter?: boolean;
      /** CI run id or other grouping label; a scoped key may only use labels with its prefix */
      label?: string;
      /** Only mail whose subject contains this (case-insensitive) */
      subjectContains?: string;
      /** Receives a signed POST for every message (message.received) */
      callbackUrl?: string;
      /** Choose the part before @ (default: random) */
      localPart?: string;
      /** Choose the whole address; its domain must be one this inboxd serves */
      address?: string;
      /** Consider only mail after this ISO 8601 time or this message id (msg_…) of the inbox. Default: mail that arrived after the inbox was created and is newer than the message verify last returned on this inbox; a time before the inbox was created also takes mail sent to the address earlier (claimed by the inbox) */
      since?: string;
    };
    bodyRequired: false;
    response: {
      /** verified = a code or link was found; received = mail arrived without one; awaiting_message = inbox made, nothing yet; timeout */
      status: "awaiting_message" | "verified" | "received" | "timeout";
      service: string | null;
      email: {
        inboxId: string;
        /** Type this into the external signup form */
        address: string;
      };
      verification: {
        otp: string | null;
        primaryLink: string | null;
        /** Target decoded from a click-tracking wrapper, when the wrapper carries it */
        primaryLinkUnwrapped: string | null;
        candidates: {
          kind: "otp" | "link";
          value: string;
          confidence: number;
          source: "subject" | "text" | "html";
          unwrapped?: string;
        }[];
      };
      agent: {
        primaryAction: {
          type: "use_address" | "otp" | "link" | "manual" | "retry";
          value: string;
          instruction: string;
        };
      };
      message: {
        messageId: string;
        /** The sender, the same shape as in messages: {name, address} */
        from: {
          name: string;
          address: string;
        } | null;
        subject: string;
        receivedAt: string;
      } | null;
      hasRaw: boolean;
      rawUrl: string | null;
      hasAttachments: boolean;
      attachmentCount: number;
      /** The inbox was removed after this call (deleteAfter) */
      deleted: boolean;
      /** Only on timeout: the mail did arrive, and its result was handed out by an earlier call; verify again with this since to get it again */
      alreadyHandedOut?: {
        messageId: string;
        subject: string;
        receivedAt: string;
        /** When an earlier verify call handed out its code or link */
        handedOutAt: string;
        /** Pass this as since to get that result again */
        since: string;
      };
      /** Only when this call created the inbox with a callbackUrl: the whsec_ secret that signs its callbacks, shown once */
      callbackSecret?: string;
    };
  };
  /** Extract verification data from an inbox — `GET /v1/inboxes/{id}/extract` */
  "inboxes.extract": {
    method: "GET";
    path: "/v1/inboxes/{id}/extract";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: {
      /** Extract from this message instead of picking one */
      messageId?: string;
      /** One of the 25 presets: github, google, microsoft, apple, amazon, slack, discord, notion, stripe, shopify, atlassian, dropbox, linkedin, x, facebook, instagram, airbnb, uber, netflix, spotify, zoom, openai, figma, vercel, paypal */
      service?: "github" | "google" | "microsoft" | "apple" | "amazon" | "slack" | "discord" | "notion" | "stripe" | "shopify" | "atlassian" | "dropbox" | "linkedin" | "x" | "facebook" | "instagram" | "airbnb" | "uber" | "netflix" | "spotify" | "zoom" | "openai" | "figma" | "vercel" | "paypal";
    };
    body: undefined;
    bodyRequired: false;
    response: {
      /** verified = a code or link was found; received = mail arrived without one; awaiting_message = inbox made, nothing yet; timeout */
      status: "awaiting_message" | "verified" | "received" | "timeout";
      service: string | null;
      email: {
        inboxId: string;
        /** Type this into the external signup form */
        address: string;
      };
      verification: {
        otp: string | null;
        primaryLink: string | null;
        /** Target decoded from a click-tracking wrapper, when the wrapper carries it */
        primaryLinkUnwrapped: string | null;
        candidates: {
          kind: "otp" | "link";
          value: string;
          confidence: number;
          source: "subject" | "text" | "html";
          unwrapped?: string;
        }[];
      };
      agent: {
        primaryAction: {
          type: "use_address" | "otp" | "link" | "manual" | "retry";
          value: string;
          instruction: string;
        };
      };
      message: {
        messageId: string;
        /** The sender, the same shape as in messages: {name, address} */
        from: {
          name: string;
          address: string;
        } | null;
        subject: string;
        receivedAt: string;
      } | null;
      hasRaw: boolean;
      rawUrl: string | null;
      hasAttachments: boolean;
      attachmentCount: number;
      /** The inbox was removed after this call (deleteAfter) */
      deleted: boolean;
      /** Only on timeout: the mail did arrive, and its result was handed out by an earlier call; verify again with this since to get it again */
      alreadyHandedOut?: {
        messageId: string;
        subject: string;
        receivedAt: string;
        /** When an earlier verify call handed out its code or link */
        handedOutAt: string;
        /** Pass this as since to get that result again */
        since: string;
      };
      /** Only when this call created the inbox with a callbackUrl: the whsec_ secret that signs its callbacks, shown once */
      callbackSecret?: string;
    };
  };
  /** Simulate an incoming message — `POST /v1/inboxes/{id}/simulate` */
  "inboxes.simulate": {
    method: "POST";
    path: "/v1/inboxes/{id}/simulate";
    status: 201;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** What to deliver: otp, magic_link, otp_and_link, welcome, attachment_only, custom (default otp; custom uses your from/subject/text/html) */
      scenario?: "otp" | "magic_link" | "otp_and_link" | "welcome" | "attachment_only" | "custom";
      /** One of the 25 presets: github, google, microsoft, apple, amazon, slack, discord, notion, stripe, shopify, atlassian, dropbox, linkedin, x, facebook, instagram, airbnb, uber, netflix, spotify, zoom, openai, figma, vercel, paypal */
      service?: "github" | "google" | "microsoft" | "apple" | "amazon" | "slack" | "discord" | "notion" | "stripe" | "shopify" | "atlassian" | "dropbox" | "linkedin" | "x" | "facebook" | "instagram" | "airbnb" | "uber" | "netflix" | "spotify" | "zoom" | "openai" | "figma" | "vercel" | "paypal";
      /** From header, e.g. "Acme <no-reply@acme.test>" */
      from?: string;
      /** Subject line (custom scenario) */
      subject?: string;
      /** Plain-text body (custom scenario) */
      text?: string;
      /** HTML body (custom scenario) */
      html?: string;
      /** Use this code instead of a random one */
      code?: string;
      /** Use this link instead of a random one */
      link?: string;
    };
    bodyRequired: false;
    response: {
      messageId: string;
      inboxId: string;
      scenario: string;
      from: string;
      subject: string;
      size: number;
      expected: {
        otp: string | null;
        primaryLink: string | null;
      };
    };
  };
  /** Rehearsal signup page (HTML) — `GET /v1/agent/test` */
  "rehearsal.page": {
    method: "GET";
    path: "/v1/agent/test";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: Record<string, never>;
  };
  /** Rehearsal: submit an address; inboxd mails it a code and a magic link — `POST /v1/agent/test/signup` */
  "rehearsal.signup": {
    method: "POST";
    path: "/v1/agent/test/signup";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      email?: string;
    };
    bodyRequired: false;
    response: Record<string, never>;
  };
  /** Rehearsal: check the code the agent typed — `POST /v1/agent/test/confirm` */
  "rehearsal.confirm": {
    method: "POST";
    path: "/v1/agent/test/confirm";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      session?: string;
      code?: string;
    };
    bodyRequired: false;
    response: Record<string, never>;
  };
  /** Rehearsal: the magic link the agent clicked — `GET /v1/agent/test/magic` */
  "rehearsal.magic": {
    method: "GET";
    path: "/v1/agent/test/magic";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      session?: string;
      token?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: Record<string, never>;
  };
  /** List agent runs — `GET /v1/agent/runs` */
  "runs.list": {
    method: "GET";
    path: "/v1/agent/runs";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      status?: "active" | "succeeded" | "failed" | "abandoned";
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        runId: string;
        /** Every inbox of the run carries it (GET /v1/inboxes?label=…) */
        label: string;
        goal: string;
        status: "active" | "succeeded" | "failed" | "abandoned";
        services: {
          name: string;
          preset: string | null;
          inboxId: string | null;
          /** The address to type into this service’s form */
          address: string | null;
        }[];
        steps: {
          stepId: string;
          service: string;
          kind: "get_address" | "submit_form" | "wait_for_mail" | "use_verification";
          status: "pending" | "active" | "done" | "failed" | "skipped";
          attempts: number;
          notes: string[];
          startedAt: string | null;
          finishedAt: string | null;
          /** use_verification: the message whose code or link was reported on */
          messageId: string | null;
        }[];
        metadata: Record<string, unknown>;
        notes: string | null;
        /** Pass as ifVersion to svc_patch_run_session to detect concurrent changes */
        version: number;
        createdAt: string;
        updatedAt: string;
        expiresAt: string;
      }[];
      nextCursor: string | null;
    };
  };
  /** Start an agent run — `POST /v1/agent/runs` */
  "runs.start": {
    method: "POST";
    path: "/v1/agent/runs";
    status: 201;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** What the run is for, in a sentence */
      goal: string;
      /** The services to sign up to, in order: preset names (e.g. github) or any name; at most 50 */
      services: string[];
      /** Minutes until the inbox and its mail are removed (1-10080, default 60) */
      ttlMinutes?: number;
      /** Keep the run this long (1-10080 minutes) instead of as long as its inboxes */
      retentionMinutes?: number;
      /** Free JSON; values under secret-like keys (password, token, privateKey, pin, verificationCode, authorization, x-api-key, …) and values that look like tokens are stored as *** */
      metadata?: Record<string, unknown>;
      /** Create every service’s inbox now (default: one at a time, by svc_next_run) */
      createInboxes?: boolean;
    };
    bodyRequired: true;
    response: {
      runId: string;
      /** Every inbox of the run carries it (GET /v1/inboxes?label=…) */
      label: string;
      goal: string;
      status: "active" | "succeeded" | "failed" | "abandoned";
      services: {
        name: string;
        preset: string | null;
        inboxId: string | null;
        /** The address to type into this service’s form */
        address: string | null;
      }[];
      steps: {
        stepId: string;
        service: string;
        kind: "get_address" | "submit_form" | "wait_for_mail" | "use_verification";
        status: "pending" | "active" | "done" | "failed" | "skipped";
        attempts: number;
        notes: string[];
        startedAt: string | null;
        finishedAt: string | null;
        /** use_verification: the message whose code or link was reported on */
        messageId: string | null;
      }[];
      metadata: Record<string, unknown>;
      notes: string | null;
      /** Pass as ifVersion to svc_patch_run_session to detect concurrent changes */
      version: number;
      createdAt: string;
      updatedAt: string;
      expiresAt: string;
    };
  };
  /** Get an agent run (its session document) — `GET /v1/agent/runs/{id}` */
  "runs.get": {
    method: "GET";
    path: "/v1/agent/runs/{id}";
    status: 200;
    pathParams: {
      /** Run id (run_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      runId: string;
      /** Every inbox of the run carries it (GET /v1/inboxes?label=…) */
      label: string;
      goal: string;
      status: "active" | "succeeded" | "failed" | "abandoned";
      services: {
        name: string;
        preset: string | null;
        inboxId: string | null;
        /** The address to type into this service’s form */
        address: string | null;
      }[];
      steps: {
        stepId: string;
        service: string;
        kind: "get_address" | "submit_form" | "wait_for_mail" | "use_verification";
        status: "pending" | "active" | "done" | "failed" | "skipped";
        attempts: number;
        notes: string[];
        startedAt: string | null;
        finishedAt: string | null;
        /** use_verification: the message whose code or link was reported on */
        messageId: string | null;
      }[];
      metadata: Record<string, unknown>;
      notes: string | null;
      /** Pass as ifVersion to svc_patch_run_session to detect concurrent changes */
      version: number;
      createdAt: string;
      updatedAt: string;
      expiresAt: string;
    };
  };
  /** Change a run’s status, metadata or notes — `PATCH /v1/agent/runs/{id}` */
  "runs.patch": {
    method: "PATCH";
    path: "/v1/agent/runs/{id}";
    status: 200;
    pathParams: {
      /** Run id (run_…) */
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** New status: active, succeeded, failed or abandoned (succeeded is final; going back from it is 409) */
      status?: "active" | "succeeded" | "failed" | "abandoned";
      /** Free JSON; values under secret-like keys (password, token, privateKey, pin, verificationCode, authorization, x-api-key, …) and values that look like tokens are stored as *** */
      metadata?: Record<string, unknown>;
      /** Free notes for the reviewer; replaces the notes, null clears them */
      notes?: string | null;
      /** The run version you read; 409 if the run changed since */
      ifVersion?: number;
    };
    bodyRequired: false;
    response: {
      runId: string;
      /** Every inbox of the run carries it (GET /v1/inboxes?label=…) */
      label: string;
      goal: string;
      status: "active" | "succeeded" | "failed" | "abandoned";
      services: {
        name: string;
        preset: string | null;
        inboxId: string | null;
        /** The address to type into this service’s form */
        address: string | null;
      }[];
      steps: {
        stepId: string;
        service: string;
        kind: "get_address" | "submit_form" | "wait_for_mail" | "use_verification";
        status: "pending" | "active" | "done" | "failed" | "skipped";
        attempts: number;
        notes: string[];
        startedAt: string | null;
        finishedAt: string | null;
        /** use_verification: the message whose code or link was reported on */
        messageId: string | null;
      }[];
      metadata: Record<string, unknown>;
      notes: string | null;
      /** Pass as ifVersion to svc_patch_run_session to detect concurrent changes */
      version: number;
      createdAt: string;
      updatedAt: string;
      expiresAt: string;
    };
  };
  /** Get (and start) the next step of a run — `POST /v1/agent/runs/{id}/next` */
  "runs.next": {
    method: "POST";
    path: "/v1/agent/runs/{id}/next";
    status: 200;
    pathParams: {
      /** Run id (run_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      runId: string;
      status: "active" | "succeeded" | "failed" | "abandoned";
      step: {
        stepId: string;
        service: string;
        kind: "get_address" | "submit_form" | "wait_for_mail" | "use_verification";
        status: "pending" | "active" | "done" | "failed" | "skipped";
        attempts: number;
        notes: string[];
        startedAt: string | null;
        finishedAt: string | null;
        /** use_verification: the message whose code or link was reported on */
        messageId: string | null;
      } | null;
      service: {
        name: string;
        preset: string | null;
        inboxId: string | null;
        /** The address to type into this service’s form */
        address: string | null;
      } | null;
      instruction: string;
      recipe: {
        summary: string;
        steps: string[];
      } | null;
      waitFor: {
        sends: "code" | "link" | "both" | "unknown";
        senderDomains: string[];
        codeShape: string | null;
      } | null;
      /** The newest mail of the service with a code or link, if any arrived */
      mail: {
        messageId: string;
        inboxId: string;
        from: string | null;
        subject: string;
        receivedAt: string;
        otp: string | null;
        link: string | null;
      } | null;
      remainingSteps: number;
      /** How the run ended, when step is null (a finished run); null while there is a step */
      outcome: {
        status: "active" | "succeeded" | "failed" | "abandoned";
        /** When the run reached this status; null for an active run */
        finishedAt: string | null;
        /** "every step is done or skipped", or "set by svc_patch_run_session" */
        reason: string | null;
        notes: string | null;
        services: {
          name: string;
          inboxId: string | null;
          address: string | null;
          /** How the service’s use_verification step stands: done = verified */
          verification: "pending" | "active" | "done" | "failed" | "skipped";
          messageId: string | null;
        }[];
      } | null;
    };
  };
  /** Report the outcome of a run step — `POST /v1/agent/runs/{id}/report` */
  "runs.report": {
    method: "POST";
    path: "/v1/agent/runs/{id}/report";
    status: 200;
    pathParams: {
      /** Run id (run_…) */
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** The stepId from svc_next_run, e.g. 1.submit_form */
      stepId: string;
      /** How the step ended: done, failed (it comes back for another try) or skipped */
      outcome: "done" | "failed" | "skipped";
      /** What happened, in a few words (never a password or code) */
      note?: string;
    };
    bodyRequired: true;
    response: {
      runId: string;
      status: "active" | "succeeded" | "failed" | "abandoned";
      step: {
        stepId: string;
        service: string;
        kind: "get_address" | "submit_form" | "wait_for_mail" | "use_verification";
        status: "pending" | "active" | "done" | "failed" | "skipped";
        attempts: number;
        notes: string[];
        startedAt: string | null;
        finishedAt: string | null;
        /** use_verification: the message whose code or link was reported on */
        messageId: string | null;
      };
      remainingSteps: number;
    };
  };
  /** Suggest what to do next in a run — `GET /v1/agent/runs/{id}/plan` */
  "runs.plan": {
    method: "GET";
    path: "/v1/agent/runs/{id}/plan";
    status: 200;
    pathParams: {
      /** Run id (run_…) */
      id: string;
    };
    query: {
      /** Wait up to this long for a code or link first (0-120, default 0) */
      waitSeconds?: number;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      runId: string;
      status: "active" | "succeeded" | "failed" | "abandoned";
      step: {
        stepId: string;
        service: string;
        kind: "get_address" | "submit_form" | "wait_for_mail" | "use_verification";
        status: "pending" | "active" | "done" | "failed" | "skipped";
        attempts: number;
        notes: string[];
        startedAt: string | null;
        finishedAt: string | null;
        /** use_verification: the message whose code or link was reported on */
        messageId: string | null;
      } | null;
      service: {
        name: string;
        preset: string | null;
        inboxId: string | null;
        /** The address to type into this service’s form */
        address: string | null;
      } | null;
      mail: {
        messageId: string;
        inboxId: string;
        from: string | null;
        subject: string;
        receivedAt: string;
        otp: string | null;
        link: string | null;
      } | null;
      suggestions: {
        action: "next_run" | "use_address" | "submit_form" | "wait" | "type_code" | "open_link" | "read_message" | "resend" | "report" | "none";
        value: string | null;
        reason: string;
      }[];
    };
  };
  /** A run’s timeline — `GET /v1/agent/runs/{id}/timeline` */
  "runs.timeline": {
    method: "GET";
    path: "/v1/agent/runs/{id}/timeline";
    status: 200;
    pathParams: {
      /** Run id (run_…) */
      id: string;
    };
    query: {
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      runId: string;
      label: string;
      items: {
        seq: number;
        at: string;
        type: string;
        stepId: string | null;
        data: Record<string, unknown>;
      }[];
      nextCursor: string | null;
    };
  };
  /** Stream events of an inbox (SSE) — `GET /v1/inboxes/{id}/events` */
  "inboxes.events": {
    method: "GET";
    path: "/v1/inboxes/{id}/events";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: {
      /** Resume after this event id (same as the Last-Event-ID header, which wins) */
      lastEventId?: number;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      id: string;
      event: "message.received";
      data: {
        messageId: string;
        inboxId: string;
        from: {
          name: string;
          address: string;
        } | null;
        to: {
          name: string;
          address: string;
        }[];
        cc: {
          name: string;
          address: string;
        }[];
        subject: string;
        receivedAt: string;
        size: number;
        /** The message has attachments (inline parts, images drawn inside the HTML, do not count) */
        hasAttachments: boolean;
        /** Attachments, not counting inline parts (see attachments[].inline) */
        attachmentCount: number;
        hasRaw: boolean;
        rawUrl: string;
        verification: {
          otp: string | null;
          primaryLink: string | null;
        };
        /** How the message arrived: "smtp", "simulate", "webhook:<provider>" (mail injected over an inbound webhook), or "send" (sent from an inboxd inbox) */
        via: string;
        /** "inbound": received by this inbox; "outbound": the copy of a message this inbox sent (never counted as received mail) */
        direction: "inbound" | "outbound";
        /** Labels of the message (README "Labels by rule"): the tag of a plus address (user+tag@…), X-Tags header values, and labels added by the team's label rules; in message lists and reads, and in message.received events (SSE, callbacks) */
        labels?: string[];
        /** The conversation it belongs to (thr_…; GET /v1/inboxes/:id/threads/:threadId); null only for mail not yet in an inbox */
        threadId: string | null;
        /** Read state: true once a POP3 client retrieved it or an IMAP client set \Seen (README "POP3 and IMAP"); false for new mail */
        seen: boolean;
      };
    };
  };
  /** List callback deliveries — `GET /v1/inboxes/{id}/callbacks` */
  "inboxes.callbacks": {
    method: "GET";
    path: "/v1/inboxes/{id}/callbacks";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: {
      /** Only attempts for this message */
      messageId?: string;
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        /** Same for every attempt of one delivery; sent as the webhook-id header */
        deliveryId: string;
        messageId: string;
        event: string;
        url: string;
        /** 1 for the first try, up to 6 */
        attempt: number;
        /** HTTP status of the answer; null when none came (timeout, refused, network error) */
        statusCode: number | null;
        error: string | null;
        durationMs: number;
        at: string;
        /** When the next attempt is due; null when this was the last one */
        nextRetryAt: string | null;
        delivered: boolean;
      }[];
      nextCursor: string | null;
    };
  };
  /** Receive mail from a provider webhook — `POST /webhooks/{provider}` */
  "webhooks.inbound": {
    method: "POST";
    path: "/webhooks/{provider}";
    status: 200;
    pathParams: {
      /** One of raw, mailgun, sendgrid, postmark, ses */
      provider: string;
    };
    query: Record<string, never>;
    body: Blob | Uint8Array | string;
    bodyRequired: true;
    response: {
      provider: string;
      /** stored: the message went to ingest; ignored: not mail (e.g. an SNS subscription handshake) */
      status: "stored" | "ignored";
      detail?: string;
      deliveries: {
        rcpt: string;
        messageId: string;
        /** null: kept as unclaimed mail until an inbox claims the address */
        inboxId: string | null;
      }[];
      rejected: {
        rcpt: string;
        reason: string;
      }[];
    };
  };
  /** List the structured-extraction presets with their JSON Schemas — `GET /v1/inboxes/{id}/extract/presets` */
  "inboxes.extract_presets": {
    method: "GET";
    path: "/v1/inboxes/{id}/extract/presets";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        preset: string;
        description: string;
        fields: string[];
        schema: Record<string, unknown>;
      }[];
      nextCursor: null;
    };
  };
  /** Extract structured data from a message (preset or JSON Schema) — `POST /v1/inboxes/{id}/messages/{messageId}/extract` */
  "messages.extract_structured": {
    method: "POST";
    path: "/v1/inboxes/{id}/messages/{messageId}/extract";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
      /** Message id (msg_…) */
      messageId: string;
    };
    query: Record<string, never>;
    body: {
      /** 2fa, invoice or receipt */
      preset?: "2fa" | "invoice" | "receipt";
      /** A JSON Schema (draft 2020-12 subset) for the answer; instead of preset */
      schema?: Record<string, unknown>;
      /** Extra guidance for the model (with schema), e.g. amounts in cents; the mail itself is always treated as data */
      instructions?: string;
      /** auto (default): models then built-in; builtin: offline engine only */
      engine?: "auto" | "builtin";
    };
    bodyRequired: false;
    response: {
      /** The extraction; validates against the preset or the given schema when `validated` is true */
      data: unknown;
      engine: "builtin" | "model";
      /** provider:model of the link that answered; null for the built-in engine */
      model: string | null;
      /** True only when `data` matches the schema AND every entry of `checks` passed (a check that could not run is not listed) */
      validated: boolean;
      /** Links tried before, and why each was skipped */
      fallbacks: {
        model: string;
        error: string;
      }[];
      errors?: {
        path: string;
        message: string;
      }[];
      /** What a reader would check before trusting the answer; only checks whose inputs are present are listed */
      checks: {
        /** lineAmounts, linesTotal, subtotalTaxTotal, dueDate, currency, totalPresent, totalSign (invoice, receipt); supported (model answers) */
        name: string;
        ok: boolean;
        /** What was compared, e.g. "/lineItems/0: 3 × 50.00 = 150.00 ≠ 3150.00" */
        detail: string;
      }[];
      /** Where each filled value came from, keyed by JSON Pointer ("/total", "/lineItems/0/amount"); from "model": found nowhere in the mail */
      sources: Record<string, {
          from: "text" | "jsonld" | "xml" | "header" | "link" | "model";
          /** [start, end) in `sourceText` */
          span?: number[];
          /** sourceText.slice(span[0], span[1]); for a link, its anchor text */
          text?: string;
          /** JSONPath in the JSON-LD block, element path in the XML attachment, header name or link URL */
          path?: string;
        }>;
      /** The text the spans index into: the message's subject, a newline, then the body lines read (HTML rendered or text/plain, quoted replies dropped) */
      sourceText: string;
    };
  };
  /** Model fallback order and readiness (no secrets) — `GET /v1/workspace/models` */
  "workspace.models": {
    method: "GET";
    path: "/v1/workspace/models";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        provider: string;
        model: string;
        host: string;
        /** Whether an API key is set for this provider (the key itself is never shown) */
        credentials: boolean;
        ready: boolean;
        lastProbe: {
          at: string;
          ok: boolean;
          latencyMs: number;
          error: string | null;
        } | null;
      }[];
      warnings: string[];
    };
  };
  /** Probe each model of the chain live (admin) — `POST /v1/workspace/models/probe` */
  "workspace.models_probe": {
    method: "POST";
    path: "/v1/workspace/models/probe";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        model: string;
        ok: boolean;
        latencyMs: number;
        error: string | null;
      }[];
    };
  };
  /** Workspace preview hub — `GET /v1/workspace` */
  "workspace.hub": {
    method: "GET";
    path: "/v1/workspace";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      policy: {
        /** The workspace is a preview: autonomy_preview */
        status: "autonomy_preview";
        mode: "draft_only" | "auto_send_safe" | "full_auto";
        settings: {
          maxPerThreadPerDay: number;
          maxPerDay: number;
          maxLength: number;
          allowRecipientDomains: string[];
        };
        rules: {
          name: string;
          description: string;
          appliesTo: string[];
        }[];
        updatedAt: string | null;
        /** Key id (key_…) that last set the policy */
        updatedBy: string | null;
      };
      models: {
        fallbackOrder: string[];
        ready: boolean;
      };
      counts: {
        remindersOpen: number;
        draftsPending: number;
        monitors: number;
        actions: number;
      };
      routes: {
        method: string;
        path: string;
        summary: string;
        tool: string | null;
      }[];
    };
  };
  /** Summarize a mail thread — `POST /v1/workspace/summarize` */
  "workspace.summarize": {
    method: "POST";
    path: "/v1/workspace/summarize";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Inbox of a stored thread or message (inb_…) */
      inboxId?: string;
      /** A stored thread of that inbox (thr_…) */
      threadId?: string;
      /** A stored message of that inbox (msg_…), instead of a thread */
      messageId?: string;
      /** The thread itself, oldest first (at most 200), instead of inboxId + threadId */
      messages?: {
        /** Sender address */
        from: string;
        /** Recipient address or addresses */
        to?: string | string[];
        /** Subject line */
        subject?: string;
        /** Plain-text body */
        text: string;
        /** When it was sent (ISO 8601) */
        date?: string;
      }[];
      /** With supplied messages: your own address, so mail from it counts as written by you */
      me?: string;
      /** auto (default): the model chain, then the built-in engine; builtin: offline engine only */
      engine?: "auto" | "builtin";
    };
    bodyRequired: false;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      summary: string;
      keyPoints: string[];
      questions: {
        text: string;
        from: string;
        messageIndex: number;
      }[];
      dates: {
        text: string;
        date: string | null;
        sentence: string;
      }[];
      participants: string[];
      messageCount: number;
      /** Which engine wrote the answer */
      engine: "builtin" | "model";
      /** provider:model of the link that answered; null for the built-in engine */
      model: string | null;
      /** Links tried first, and why each was skipped */
      fallbacks: {
        model: string;
        error: string;
      }[];
    };
  };
  /** Draft a reply (never sends) — `POST /v1/workspace/draft-reply` */
  "workspace.draft_reply": {
    method: "POST";
    path: "/v1/workspace/draft-reply";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Inbox of a stored thread or message (inb_…) */
      inboxId?: string;
      /** A stored thread of that inbox (thr_…) */
      threadId?: string;
      /** A stored message of that inbox (msg_…), instead of a thread */
      messageId?: string;
      /** The thread itself, oldest first (at most 200), instead of inboxId + threadId */
      messages?: {
        /** Sender address */
        from: string;
        /** Recipient address or addresses */
        to?: string | string[];
        /** Subject line */
        subject?: string;
        /** Plain-text body */
        text: string;
        /** When it was sent (ISO 8601) */
        date?: string;
      }[];
      /** With supplied messages: your own address, so mail from it counts as written by you */
      me?: string;
      /** Facts the draft may use to answer questions */
      notes?: string[];
      /** auto (default): the model chain, then the built-in engine; builtin: offline engine only */
      engine?: "auto" | "builtin";
    };
    bodyRequired: false;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      /** drf_… for stored mail; null for supplied messages */
      draftId: string | null;
      to: string | null;
      subject: string;
      text: string;
      answered: {
        question: string;
        answer: string;
      }[];
      unanswered: string[];
      confidence: number;
      /** Drafting never sends */
      sent: false;
      /** Which engine wrote the answer */
      engine: "builtin" | "model";
      /** provider:model of the link that answered; null for the built-in engine */
      model: string | null;
      /** Links tried first, and why each was skipped */
      fallbacks: {
        model: string;
        error: string;
      }[];
    };
  };
  /** Read the workspace policy — `GET /v1/workspace/policy` */
  "workspace.get_policy": {
    method: "GET";
    path: "/v1/workspace/policy";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      mode: "draft_only" | "auto_send_safe" | "full_auto";
      settings: {
        maxPerThreadPerDay: number;
        maxPerDay: number;
        maxLength: number;
        allowRecipientDomains: string[];
      };
      rules: {
        name: string;
        description: string;
        appliesTo: string[];
      }[];
      updatedAt: string | null;
      /** Key id (key_…) that last set the policy */
      updatedBy: string | null;
    };
  };
  /** Set the workspace policy (admin) — `PUT /v1/workspace/policy` */
  "workspace.set_policy": {
    method: "PUT";
    path: "/v1/workspace/policy";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** draft_only (never send), auto_send_safe (send only replies passing every rule) or full_auto */
      mode: "draft_only" | "auto_send_safe" | "full_auto";
      /** Limits of automatic sending; omitted fields keep their value */
      settings?: {
        /** Automatic replies per thread in 24 h (default 1) */
        maxPerThreadPerDay?: number;
        /** Automatic replies per team in 24 h (default 50) */
        maxPerDay?: number;
        /** Longest reply sent without a person, in characters (default 1200) */
        maxLength?: number;
        /** When set, automatic replies go only to these domains */
        allowRecipientDomains?: string[];
      };
    };
    bodyRequired: true;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      mode: "draft_only" | "auto_send_safe" | "full_auto";
      settings: {
        maxPerThreadPerDay: number;
        maxPerDay: number;
        maxLength: number;
        allowRecipientDomains: string[];
      };
      rules: {
        name: string;
        description: string;
        appliesTo: string[];
      }[];
      updatedAt: string | null;
      /** Key id (key_…) that last set the policy */
      updatedBy: string | null;
    };
  };
  /** List the safety rules and the current mode — `GET /v1/workspace/rules` */
  "workspace.rules_status": {
    method: "GET";
    path: "/v1/workspace/rules";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      mode: "draft_only" | "auto_send_safe" | "full_auto";
      rules: {
        name: string;
        description: string;
        appliesTo: string[];
      }[];
      last24h: {
        sent: number;
        draft: number;
        blocked: number;
      };
    };
  };
  /** Evaluate the safety rules on a reply (dry run) — `POST /v1/workspace/rules/evaluate` */
  "workspace.rules_evaluate": {
    method: "POST";
    path: "/v1/workspace/rules/evaluate";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Inbox id (inb_…) */
      inboxId?: string;
      /** Message id (msg_…) */
      messageId?: string;
      /** A message to evaluate instead of a stored one */
      message?: {
        /** Sender address */
        from: string;
        /** Recipient address or addresses */
        to?: string | string[];
        /** Subject line */
        subject?: string;
        /** Plain-text body */
        text: string;
        /** When it was sent (ISO 8601) */
        date?: string;
        /** Headers of the message, e.g. Auto-Submitted */
        headers?: Record<string, string>;
      };
      /** The reply text to evaluate */
      text?: string;
      /** The reply HTML, if any (its links are checked too) */
      html?: string;
      /** Attachments the reply would carry */
      attachmentCount?: number;
    };
    bodyRequired: false;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      mode: "draft_only" | "auto_send_safe" | "full_auto";
      /** What execute-reply would do under the current mode */
      outcome: "sent" | "drafted" | "blocked";
      outcomes: {
        draft_only: string;
        auto_send_safe: string;
        full_auto: string;
      };
      reasons: string[];
      checks: {
        rule: string;
        passed: boolean;
        detail: string;
      }[];
      reply: {
        to: string;
        text: string;
      };
    };
  };
  /** Suggest reminders and follow-ups — `POST /v1/workspace/reminders/suggest` */
  "workspace.suggest_reminders": {
    method: "POST";
    path: "/v1/workspace/reminders/suggest";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Inbox of a stored thread or message (inb_…) */
      inboxId?: string;
      /** A stored thread of that inbox (thr_…) */
      threadId?: string;
      /** A stored message of that inbox (msg_…), instead of a thread */
      messageId?: string;
      /** The thread itself, oldest first (at most 200), instead of inboxId + threadId */
      messages?: {
        /** Sender address */
        from: string;
        /** Recipient address or addresses */
        to?: string | string[];
        /** Subject line */
        subject?: string;
        /** Plain-text body */
        text: string;
        /** When it was sent (ISO 8601) */
        date?: string;
      }[];
      /** With supplied messages: your own address, so mail from it counts as written by you */
      me?: string;
    };
    bodyRequired: false;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      items: {
        kind: "follow_up" | "needs_reply" | "deadline";
        /** When to be reminded; never in the past (an overdue item is due now) */
        dueAt: string;
        note: string;
        why: string;
        /** The date or the answer time has passed without the thread showing it was met */
        overdue: boolean;
        /** YYYY-MM-DD the mail named (a deadline or a promise), resolved against its date */
        date: string | null;
        /** A promise made by us (we owe it) or by them (check it came) */
        promise: "ours" | "theirs" | null;
        messageId: string | null;
        threadId: string | null;
        inboxId: string | null;
      }[];
    };
  };
  /** List saved reminders — `GET /v1/workspace/reminders` */
  "workspace.list_reminders": {
    method: "GET";
    path: "/v1/workspace/reminders";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Only reminders in this state */
      status?: "open" | "completed" | "dismissed" | "snoozed";
      /** Only this kind */
      kind?: "follow_up" | "needs_reply" | "deadline" | "custom";
      /** Only reminders of this inbox */
      inboxId?: string;
      /** Only reminders of this thread */
      threadId?: string;
      /** Only reminders due before this time */
      dueBefore?: string;
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        reminderId: string;
        kind: string;
        note: string;
        dueAt: string;
        status: "open" | "completed" | "dismissed" | "snoozed";
        /** manual or suggested */
        source: string;
        inboxId: string | null;
        threadId: string | null;
        messageId: string | null;
        snoozedUntil: string | null;
        createdAt: string;
        completedAt: string | null;
      }[];
      nextCursor: string | null;
    };
  };
  /** Save a reminder — `POST /v1/workspace/reminders` */
  "workspace.create_reminder": {
    method: "POST";
    path: "/v1/workspace/reminders";
    status: 201;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** What to do */
      note: string;
      /** When it is due: a future ISO 8601 date-time, e.g. 2026-12-01T09:00:00Z */
      dueAt: string;
      /** follow_up, needs_reply, deadline or custom */
      kind?: "follow_up" | "needs_reply" | "deadline" | "custom";
      /** Inbox id (inb_…) */
      inboxId?: string;
      /** Thread id (thr_…) */
      threadId?: string;
      /** A message of inboxId this reminder is about */
      messageId?: string;
      /** manual, or suggested when saved from svc_workspace_suggest_reminders */
      source?: "manual" | "suggested";
    };
    bodyRequired: true;
    response: {
      reminderId: string;
      kind: string;
      note: string;
      dueAt: string;
      status: "open" | "completed" | "dismissed" | "snoozed";
      /** manual or suggested */
      source: string;
      inboxId: string | null;
      threadId: string | null;
      messageId: string | null;
      snoozedUntil: string | null;
      createdAt: string;
      completedAt: string | null;
    };
  };
  /** Complete a reminder — `PATCH /v1/workspace/reminders/{id}/complete` */
  "workspace.complete_reminder": {
    method: "PATCH";
    path: "/v1/workspace/reminders/{id}/complete";
    status: 200;
    pathParams: {
      /** Reminder id (rem_…) */
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** Why or how it was done */
      note?: string;
    };
    bodyRequired: false;
    response: {
      reminderId: string;
      kind: string;
      note: string;
      dueAt: string;
      status: "open" | "completed" | "dismissed" | "snoozed";
      /** manual or suggested */
      source: string;
      inboxId: string | null;
      threadId: string | null;
      messageId: string | null;
      snoozedUntil: string | null;
      createdAt: string;
      completedAt: string | null;
    };
  };
  /** List actions — `GET /v1/workspace/actions` */
  "workspace.list_actions": {
    method: "GET";
    path: "/v1/workspace/actions";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Actions of this reminder */
      reminderId?: string;
      /** Actions of this thread */
      threadId?: string;
      /** Actions about this message */
      messageId?: string;
      /** Only this type */
      type?: "draft" | "wait" | "completed" | "blocked" | "sent";
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        actionId: string;
        /** draft, wait, completed, blocked or sent */
        type: string;
        at: string;
        inboxId: string | null;
        threadId: string | null;
        messageId: string | null;
        reminderId: string | null;
        draftId: string | null;
        actorKeyId: string | null;
        note: string | null;
        reasons: string[];
      }[];
      nextCursor: string | null;
    };
  };
  /** Log an action — `POST /v1/workspace/actions` */
  "workspace.log_action": {
    method: "POST";
    path: "/v1/workspace/actions";
    status: 201;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** draft, wait, completed or blocked */
      type: "draft" | "wait" | "completed" | "blocked";
      /** The reminder this is about */
      reminderId?: string;
      /** The inbox this is about */
      inboxId?: string;
      /** The thread this is about */
      threadId?: string;
      /** The message this is about */
      messageId?: string;
      /** What happened */
      note?: string;
      /** Why (e.g. for blocked) */
      reasons?: string[];
    };
    bodyRequired: true;
    response: {
      actionId: string;
      /** draft, wait, completed, blocked or sent */
      type: string;
      at: string;
      inboxId: string | null;
      threadId: string | null;
      messageId: string | null;
      reminderId: string | null;
      draftId: string | null;
      actorKeyId: string | null;
      note: string | null;
      reasons: string[];
    };
  };
  /** Execute a policy-gated, idempotent reply — `POST /v1/workspace/execute-reply` */
  "workspace.execute_reply": {
    method: "POST";
    path: "/v1/workspace/execute-reply";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Inbox id (inb_…) */
      inboxId: string;
      /** The received message to answer (msg_…) */
      messageId: string;
      /** The reply text; omit to use draftId or a generated draft */
      text?: string;
      /** Optional HTML version of the reply */
      html?: string;
      /** A stored draft (drf_…) of this message to send instead of text */
      draftId?: string;
      /** Idempotency key (or the Idempotency-Key header): the same key returns the first result for 24 hours */
      idempotencyKey?: string;
    };
    bodyRequired: true;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      /** sent; drafted (draft_only); blocked (a rule failed: kept as a draft) */
      outcome: "sent" | "drafted" | "blocked";
      mode: "draft_only" | "auto_send_safe" | "full_auto";
      reasons: string[];
      checks: {
        rule: string;
        passed: boolean;
        detail: string;
      }[];
      inboxId: string;
      messageId: string;
      threadId: string | null;
      to: string;
      subject: string;
      text: string;
      draftId: string | null;
      sentMessageId: string | null;
      deliveries: {
        rcpt: string;
        state: string;
      }[];
      actionId: string;
      /** Where the text came from */
      engine: "request" | "draft" | "builtin" | "model";
      idempotencyKey: string;
    };
  };
  /** Create a draft in a mailbox — `POST /v1/workspace/execute-gmail-draft` */
  "workspace.execute_gmail_draft": {
    method: "POST";
    path: "/v1/workspace/execute-gmail-draft";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** The mailbox: a connected account id (pac_…) or "local" for inboxd’s own inboxes; default the only connected account, else local */
      accountId?: string;
      /** The thread to reply in (from svc_gmail_list_threads of the same account) */
      threadId?: string;
      /** Recipients; default the thread’s last sender */
      to?: string[];
      /** Cc recipients */
      cc?: string[];
      /** Subject; default "Re: " + the thread’s subject */
      subject?: string;
      /** The draft’s text (the mailbox signature from its settings is appended) */
      text: string;
      /** Optional HTML version (IMAP and Gmail drafts) */
      html?: string;
      /** Message-ID the draft answers, when not given by threadId */
      inReplyTo?: string;
      /** Idempotency key (or the Idempotency-Key header): the same key returns the first result for 24 hours */
      idempotencyKey?: string;
    };
    bodyRequired: true;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      /** The draft in the mailbox: IMAP "folder:uid", a Gmail draft id, or drf_… locally */
      draftId: string;
      accountId: string;
      provider: "local" | "imap" | "gmail";
      threadId: string | null;
      to: string[];
      subject: string;
      /** Where the draft is: the IMAP folder, gmail:drafts, or inboxd:workspace_drafts */
      location: string;
      /** The workspace policy; a draft is allowed in every mode */
      mode: "draft_only" | "auto_send_safe" | "full_auto";
      /** The workspace action (type draft) that logged it */
      actionId: string;
      idempotencyKey: string | null;
    };
  };
  /** Create a calendar event under the workspace policy — `POST /v1/workspace/execute-calendar-event` */
  "workspace.execute_calendar_event": {
    method: "POST";
    path: "/v1/workspace/execute-calendar-event";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Calendar account (pac_…) or "local"; default the only connected account, else the local calendar */
      accountId?: string;
      /** A calendar of that account (CalDAV URL, Google calendar id); default its primary */
      calendarId?: string;
      /** Event title */
      title: string;
      /** Start, ISO 8601 with offset */
      start: string;
      /** End, ISO 8601 with offset (after start) */
      end: string;
      /** IANA zone for the local times in the answer and the event (default UTC) */
      timeZone?: string;
      /** Attendee e-mail addresses */
      attendees?: string[];
      /** Event description */
      description?: string;
      /** Where it takes place (room, address or meeting link) */
      location?: string;
      /** Idempotency key (or the Idempotency-Key header): the same key returns the first result for 24 hours and creates nothing again */
      idempotencyKey?: string;
    };
    bodyRequired: true;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      /** created; drafted (draft_only: proposed, not created); blocked (a check failed) */
      outcome: "created" | "drafted" | "blocked";
      mode: "draft_only" | "auto_send_safe" | "full_auto";
      reasons: string[];
      checks: {
        rule: string;
        passed: boolean;
        detail: string;
      }[];
      /** "local" or the account the event is (or would be) created in */
      accountId: string;
      provider: string;
      calendarId: string | null;
      /** The created event (null unless outcome is created) */
      eventId: string | null;
      url: string | null;
      event: {
        title: string;
        start: string;
        end: string;
        startLocal: string;
        endLocal: string;
        timeZone: string;
        attendees: string[];
      };
      conflicts: {
        title: string;
        start: string;
        end: string;
        calendarId: string;
      }[];
      /** The workspace action logged (draft, blocked or sent) */
      actionId: string;
      idempotencyKey: string | null;
    };
  };
  /** Today view — `GET /v1/workspace/today` */
  "workspace.today": {
    method: "GET";
    path: "/v1/workspace/today";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      now: string;
      items: {
        /** rem_… (reminder), drf_… (draft) or msg_… (message awaiting a reply): the id to decide on */
        id: string;
        kind: "reminder_due" | "draft_awaiting_decision" | "awaiting_reply";
        title: string;
        why: string;
        dueAt: string | null;
        inboxId: string | null;
        threadId: string | null;
        messageId: string | null;
        decisions: ("approve" | "dismiss" | "snooze")[];
      }[];
    };
  };
  /** Decide on a today item — `POST /v1/workspace/today/{id}/decision` */
  "workspace.today_decision": {
    method: "POST";
    path: "/v1/workspace/today/{id}/decision";
    status: 200;
    pathParams: {
      /** The today item id: rem_…, drf_… or msg_… */
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** approve, dismiss or snooze */
      decision: "approve" | "dismiss" | "snooze";
      /** With snooze: until when (a future ISO 8601 date-time) */
      until?: string;
      /** With approve on a draft or message: the text to send instead */
      text?: string;
    };
    bodyRequired: true;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      id: string;
      decision: string;
      /** What the item is now: completed, dismissed, snoozed, sent, drafted or blocked */
      state: string;
      /** With approve of a reply: the execute-reply result */
      reply?: unknown;
    };
  };
  /** A draft with each safety rule’s verdict — `GET /v1/workspace/drafts/{id}` */
  "workspace.draft_review": {
    method: "GET";
    path: "/v1/workspace/drafts/{id}";
    status: 200;
    pathParams: {
      /** Draft id (drf_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      draft: {
        draftId: string;
        /** pending, sent, dismissed or snoozed */
        status: string;
        inboxId: string | null;
        messageId: string | null;
        threadId: string | null;
        to: string | null;
        subject: string;
        text: string;
        reasons: string[];
        createdAt: string;
      };
      /** null for a draft that answers no stored message */
      evaluation: {
        mode: string;
        outcome: "sent" | "drafted" | "blocked";
        outcomes: {
          draft_only: string;
          auto_send_safe: string;
          full_auto: string;
        };
        reasons: string[];
        checks: {
          rule: string;
          passed: boolean;
          detail: string;
        }[];
      } | null;
    };
  };
  /** List monitors — `GET /v1/workspace/monitors` */
  "workspace.list_monitors": {
    method: "GET";
    path: "/v1/workspace/monitors";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      /** The workspace is a preview: autonomy_preview */
      status: "autonomy_preview";
      items: {
        monitorId: string;
        name: string;
        kind: "expect_mail" | "no_reply_after";
        params: Record<string, unknown>;
        intervalSeconds: number;
        enabled: boolean;
        nextRunAt: string;
        lastRunAt: string | null;
        /** ok, failed (expected mail missing), alert (threads without reply), error, or incomplete (stopped at a cap before it could tell) */
        lastStatus: string | null;
        createdAt: string;
      }[];
      nextCursor: null;
    };
  };
  /** Create a monitor — `POST /v1/workspace/monitors` */
  "workspace.create_monitor": {
    method: "POST";
    path: "/v1/workspace/monitors";
    status: 201;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** A name for people */
      name: string;
      /** expect_mail or no_reply_after */
      kind: "expect_mail" | "no_reply_after";
      /** The inbox watched */
      inboxId: string;
      /** expect_mail: sender contains this */
      from?: string;
      /** expect_mail: subject contains this */
      subjectContains?: string;
      /** expect_mail: text contains this */
      textContains?: string;
      /** expect_mail: look back this many minutes (default 60) */
      withinMinutes?: number;
      /** no_reply_after: hours without a reply (default 24) */
      hours?: number;
      /** How often the scheduler runs it (60 s to 7 days; default 3600) */
      intervalSeconds?: number;
      /** Run on the schedule (runs on demand either way) */
      enabled?: boolean;
    };
    bodyRequired: true;
    response: {
      monitorId: string;
      name: string;
      kind: "expect_mail" | "no_reply_after";
      params: Record<string, unknown>;
      intervalSeconds: number;
      enabled: boolean;
      nextRunAt: string;
      lastRunAt: string | null;
      /** ok, failed (expected mail missing), alert (threads without reply), error, or incomplete (stopped at a cap before it could tell) */
      lastStatus: string | null;
      createdAt: string;
    };
  };
  /** Delete a monitor — `DELETE /v1/workspace/monitors/{id}` */
  "workspace.delete_monitor": {
    method: "DELETE";
    path: "/v1/workspace/monitors/{id}";
    status: 200;
    pathParams: {
      /** Monitor id (mon_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      monitorId: string;
      deleted: true;
    };
  };
  /** Run a monitor now — `POST /v1/workspace/monitors/{id}/run` */
  "workspace.run_monitor": {
    method: "POST";
    path: "/v1/workspace/monitors/{id}/run";
    status: 200;
    pathParams: {
      /** Monitor id (mon_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      runId: string;
      monitorId: string;
      at: string;
      trigger: "schedule" | "manual";
      status: string;
      findings: (Record<string, unknown>)[];
      /** Where the run stopped early, "stopped at the cap: …" naming the flag; null when it examined everything */
      stoppedAtCap: string | null;
    };
  };
  /** List a monitor’s runs — `GET /v1/workspace/monitors/{id}/runs` */
  "workspace.list_monitor_runs": {
    method: "GET";
    path: "/v1/workspace/monitors/{id}/runs";
    status: 200;
    pathParams: {
      /** Monitor id (mon_…) */
      id: string;
    };
    query: {
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        runId: string;
        monitorId: string;
        at: string;
        trigger: "schedule" | "manual";
        status: string;
        findings: (Record<string, unknown>)[];
        /** Where the run stopped early, "stopped at the cap: …" naming the flag; null when it examined everything */
        stoppedAtCap: string | null;
      }[];
      nextCursor: string | null;
    };
  };
  /** Get the team and its API keys — `GET /v1/team` */
  "team.get": {
    method: "GET";
    path: "/v1/team";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      team: {
        teamId: string;
        name: string;
        plan: string;
        createdAt: string;
      };
      keys: {
        keyId: string;
        label: string;
        role: "admin" | "member";
        scope: {
          labelPrefix: string | null;
          readOnly: boolean;
        };
        /** First characters of the secret, to tell keys apart */
        prefix: string;
        clientId: string | null;
        createdAt: string;
        lastUsedAt: string | null;
        revokedAt: string | null;
      }[];
    };
  };
  /** Create an API key — `POST /v1/team/keys` */
  "team.keys.create": {
    method: "POST";
    path: "/v1/team/keys";
    status: 201;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Name of the key */
      label: string;
      /** admin keys (unscoped) manage keys, clients and policy */
      role?: "admin" | "member";
      scope?: {
        /** The key may only touch inboxes whose label starts with this */
        labelPrefix?: string;
        /** When true, the key cannot create, delete, send, simulate or execute */
        readOnly?: boolean;
      };
    };
    bodyRequired: true;
    response: {
      keyId: string;
      label: string;
      role: "admin" | "member";
      scope: {
        labelPrefix: string | null;
        readOnly: boolean;
      };
      /** First characters of the secret, to tell keys apart */
      prefix: string;
      clientId: string | null;
      createdAt: string;
      lastUsedAt: string | null;
      revokedAt: string | null;
      /** The secret, shown once */
      key: string;
    };
  };
  /** Revoke an API key — `DELETE /v1/team/keys/{id}` */
  "team.keys.revoke": {
    method: "DELETE";
    path: "/v1/team/keys/{id}";
    status: 200;
    pathParams: {
      /** Key id (key_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      keyId: string;
      label: string;
      role: "admin" | "member";
      scope: {
        labelPrefix: string | null;
        readOnly: boolean;
      };
      /** First characters of the secret, to tell keys apart */
      prefix: string;
      clientId: string | null;
      createdAt: string;
      lastUsedAt: string | null;
      revokedAt: string | null;
    };
  };
  /** Exchange an API key for an access token — `POST /v1/oauth/token` */
  "oauth.token": {
    method: "POST";
    path: "/v1/oauth/token";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** client_credentials */
      grant_type?: string;
      /** An API key (ibx_…) */
      client_secret?: string;
      /** The client id, for keys of registered clients */
      client_id?: string;
      /** Ignored: the token always has the scope of its key */
      scope?: string;
    };
    bodyRequired: false;
    response: {
      access_token: string;
      token_type: "Bearer";
      expires_in: number;
      scope: string;
    };
  };
  /** Register an OAuth client (a dedicated tool-client key) — `POST /v1/oauth/register` */
  "oauth.register": {
    method: "POST";
    path: "/v1/oauth/register";
    status: 201;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      client_name: string;
      scope?: {
        /** The key may only touch inboxes whose label starts with this */
        labelPrefix?: string;
        /** When true, the key cannot create, delete, send, simulate or execute */
        readOnly?: boolean;
      };
    };
    bodyRequired: true;
    response: {
      client_id: string;
      client_name: string;
      scope: {
        labelPrefix: string | null;
        readOnly: boolean;
      };
      /** Seconds since the epoch */
      client_id_issued_at: number;
      grant_types: string[];
      token_endpoint_auth_method: string;
      client_secret: string;
      client_secret_expires_at: 0;
    };
  };
  /** Get an OAuth client (never its secret) — `GET /v1/oauth/clients/{id}` */
  "oauth.clients.get": {
    method: "GET";
    path: "/v1/oauth/clients/{id}";
    status: 200;
    pathParams: {
      /** Client id (cli_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      client_id: string;
      client_name: string;
      scope: {
        labelPrefix: string | null;
        readOnly: boolean;
      };
      /** Seconds since the epoch */
      client_id_issued_at: number;
      grant_types: string[];
      token_endpoint_auth_method: string;
      revoked: boolean;
      keyId: string | null;
    };
  };
  /** Authorization endpoint (not used: only client_credentials is supported) — `GET /v1/oauth/authorize` */
  "oauth.authorize": {
    method: "GET";
    path: "/v1/oauth/authorize";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: Record<string, never>;
  };
  /** OAuth authorization server metadata (RFC 8414) — `GET /.well-known/oauth-authorization-server` */
  "oauth.metadata": {
    method: "GET";
    path: "/.well-known/oauth-authorization-server";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      issuer: string;
      token_endpoint: string;
      registration_endpoint: string;
      authorization_endpoint: string;
      grant_types_supported: string[];
      response_types_supported: string[];
      token_endpoint_auth_methods_supported: string[];
      scopes_supported: string[];
      service_documentation: string;
    };
  };
  /** Protected resource metadata of the MCP endpoint (RFC 9728) — `GET /.well-known/oauth-protected-resource/mcp` */
  "oauth.resource_metadata": {
    method: "GET";
    path: "/.well-known/oauth-protected-resource/mcp";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      resource: string;
      authorization_servers: string[];
      bearer_methods_supported: string[];
      scopes_supported: string[];
      resource_name: string;
      resource_documentation: string;
    };
  };
  /** How to authenticate to the MCP tool server — `GET /mcp/auth` */
  "mcp.auth": {
    method: "GET";
    path: "/mcp/auth";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      resource: string;
      resource_metadata: string;
      authorization_server_metadata: string;
      token_endpoint: string;
      header: string;
      accepts: string[];
      /** Choose per connection: /mcp?toolsets=verify,search (default: --mcp-toolsets, else every tool) */
      toolsets: {
        name: string;
        /** group: one of the spec’s five tool groups (every tool is in one); set: a finer subset */
        kind: "group" | "set";
        description: string;
        tools: string[];
      }[];
    };
  };
  /** Plan and limits of the calling key — `GET /v1/me` */
  "account.me": {
    method: "GET";
    path: "/v1/me";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      team: {
        teamId: string;
        name: string;
      };
      keyId: string;
      role: "admin" | "member";
      via: "key" | "token";
      clientId: string | null;
      scope: {
        labelPrefix: string | null;
        readOnly: boolean;
      };
      oauthScope: string;
      plan: {
        name: string;
        limits: {
          maxInboxes: number | null;
          maxMessagesPerInbox: number | null;
          maxMessageBytes: number;
          requestsPerMinute: number | null;
          ttlMinutesMax: number;
          waitSecondsMax: number;
        };
      };
    };
  };
  /** Usage counters — `GET /v1/stats` */
  "account.stats": {
    method: "GET";
    path: "/v1/stats";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      scope: {
        labelPrefix: string | null;
        readOnly: boolean;
      };
      activeInboxes: number;
      storedMessages: number;
      storedBytes: number;
      totals: {
        inboxesCreated: number;
        messagesReceived: number;
        bytesReceived: number;
        /** Messages sent or replied from the team’s inboxes */
        messagesSent: number;
      } | null;
    };
  };
  /** Audit log of the team — `GET /v1/audit` */
  "account.audit": {
    method: "GET";
    path: "/v1/audit";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Only events by this key */
      keyId?: string;
      /** Only this action; a trailing * matches a prefix (key.*) */
      action?: string;
      /** From this time (inclusive) */
      since?: string;
      /** Before this time */
      until?: string;
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        id: number;
        at: string;
        actorKeyId: string | null;
        action: string;
        target: string | null;
        outcome: string;
        sourceIp: string | null;
        detail: Record<string, unknown> | null;
      }[];
      nextCursor: string | null;
    };
  };
  /** Start a paid-plan checkout — `POST /v1/billing/checkout` */
  "billing.checkout": {
    method: "POST";
    path: "/v1/billing/checkout";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      successUrl?: string;
      cancelUrl?: string;
    };
    bodyRequired: false;
    response: {
      url: string;
      sessionId: string;
    };
  };
  /** Open the customer portal — `POST /v1/billing/portal` */
  "billing.portal": {
    method: "POST";
    path: "/v1/billing/portal";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      returnUrl?: string;
    };
    bodyRequired: false;
    response: {
      url: string;
      sessionId: string;
    };
  };
  /** List custom domains — `GET /v1/domains` */
  "domains.list": {
    method: "GET";
    path: "/v1/domains";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Page size, 1-500 (default 50) */
      limit?: number;
      /** nextCursor of the previous page */
      cursor?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        domainId: string;
        /** The domain as served: lower case, IDNs in punycode */
        domain: string;
        /** verified: served (SMTP accepts mail for it, inboxes can be created at it) */
        status: "pending" | "verified";
        /** Outbound mail from this domain is DKIM-signed */
        signing: boolean;
        /** Why it is not signing, when it is not */
        signingNote: string | null;
        dkimSelector: string;
        records: {
          /** What the record is for */
          purpose: "verification" | "mx" | "spf" | "dkim" | "dmarc";
          /** DNS record type */
          type: "TXT" | "MX";
          /** Fully qualified record name (some DNS panels want only the part before the domain) */
          name: string;
          /** Value to publish (TXT: one string; a DNS server may split a long one into 255-byte chunks) */
          value: string;
          /** MX preference */
          priority?: number;
          /** verified: needed for the domain to be served · signing: needed for DKIM-signed outbound mail · null: advisory */
          requiredFor: "verified" | "signing" | null;
          /** Result of the last verify (unchecked before the first) */
          status: "unchecked" | "found" | "missing" | "mismatch";
          /** What DNS answered at that name at the last verify */
          foundValues: string[];
          /** Why the lookup itself failed (DNS server unreachable, SERVFAIL); null when DNS answered */
          error: string | null;
          /** What to change when the record is missing or differs */
          hint: string | null;
        }[];
        createdAt: string;
        verifiedAt: string | null;
        lastCheckedAt: string | null;
      }[];
      nextCursor: string | null;
    };
  };
  /** Add a custom domain — `POST /v1/domains` */
  "domains.create": {
    method: "POST";
    path: "/v1/domains";
    status: 201;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** The domain, e.g. mail.example.com (IDNs are stored as punycode; no IPs or wildcards) */
      domain: string;
    };
    bodyRequired: true;
    response: {
      domainId: string;
      /** The domain as served: lower case, IDNs in punycode */
      domain: string;
      /** verified: served (SMTP accepts mail for it, inboxes can be created at it) */
      status: "pending" | "verified";
      /** Outbound mail from this domain is DKIM-signed */
      signing: boolean;
      /** Why it is not signing, when it is not */
      signingNote: string | null;
      dkimSelector: string;
      records: {
        /** What the record is for */
        purpose: "verification" | "mx" | "spf" | "dkim" | "dmarc";
        /** DNS record type */
        type: "TXT" | "MX";
        /** Fully qualified record name (some DNS panels want only the part before the domain) */
        name: string;
        /** Value to publish (TXT: one string; a DNS server may split a long one into 255-byte chunks) */
        value: string;
        /** MX preference */
        priority?: number;
        /** verified: needed for the domain to be served · signing: needed for DKIM-signed outbound mail · null: advisory */
        requiredFor: "verified" | "signing" | null;
        /** Result of the last verify (unchecked before the first) */
        status: "unchecked" | "found" | "missing" | "mismatch";
        /** What DNS answered at that name at the last verify */
        foundValues: string[];
        /** Why the lookup itself failed (DNS server unreachable, SERVFAIL); null when DNS answered */
        error: string | null;
        /** What to change when the record is missing or differs */
        hint: string | null;
      }[];
      createdAt: string;
      verifiedAt: string | null;
      lastCheckedAt: string | null;
    };
  };
  /** Get a custom domain — `GET /v1/domains/{id}` */
  "domains.get": {
    method: "GET";
    path: "/v1/domains/{id}";
    status: 200;
    pathParams: {
      /** Domain id (dom_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      domainId: string;
      /** The domain as served: lower case, IDNs in punycode */
      domain: string;
      /** verified: served (SMTP accepts mail for it, inboxes can be created at it) */
      status: "pending" | "verified";
      /** Outbound mail from this domain is DKIM-signed */
      signing: boolean;
      /** Why it is not signing, when it is not */
      signingNote: string | null;
      dkimSelector: string;
      records: {
        /** What the record is for */
        purpose: "verification" | "mx" | "spf" | "dkim" | "dmarc";
        /** DNS record type */
        type: "TXT" | "MX";
        /** Fully qualified record name (some DNS panels want only the part before the domain) */
        name: string;
        /** Value to publish (TXT: one string; a DNS server may split a long one into 255-byte chunks) */
        value: string;
        /** MX preference */
        priority?: number;
        /** verified: needed for the domain to be served · signing: needed for DKIM-signed outbound mail · null: advisory */
        requiredFor: "verified" | "signing" | null;
        /** Result of the last verify (unchecked before the first) */
        status: "unchecked" | "found" | "missing" | "mismatch";
        /** What DNS answered at that name at the last verify */
        foundValues: string[];
        /** Why the lookup itself failed (DNS server unreachable, SERVFAIL); null when DNS answered */
        error: string | null;
        /** What to change when the record is missing or differs */
        hint: string | null;
      }[];
      createdAt: string;
      verifiedAt: string | null;
      lastCheckedAt: string | null;
    };
  };
  /** Delete a custom domain — `DELETE /v1/domains/{id}` */
  "domains.delete": {
    method: "DELETE";
    path: "/v1/domains/{id}";
    status: 200;
    pathParams: {
      /** Domain id (dom_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      deleted: true;
      domainId: string;
      domain: string;
      /** Inboxes at the domain that were removed */
      inboxesDeleted: number;
      /** Messages removed with them (including unclaimed mail for the domain) */
      messagesDeleted: number;
    };
  };
  /** Verify a custom domain over DNS — `POST /v1/domains/{id}/verify` */
  "domains.verify": {
    method: "POST";
    path: "/v1/domains/{id}/verify";
    status: 200;
    pathParams: {
      /** Domain id (dom_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      domainId: string;
      /** The domain as served: lower case, IDNs in punycode */
      domain: string;
      /** verified: served (SMTP accepts mail for it, inboxes can be created at it) */
      status: "pending" | "verified";
      /** Outbound mail from this domain is DKIM-signed */
      signing: boolean;
      /** Why it is not signing, when it is not */
      signingNote: string | null;
      dkimSelector: string;
      records: {
        /** What the record is for */
        purpose: "verification" | "mx" | "spf" | "dkim" | "dmarc";
        /** DNS record type */
        type: "TXT" | "MX";
        /** Fully qualified record name (some DNS panels want only the part before the domain) */
        name: string;
        /** Value to publish (TXT: one string; a DNS server may split a long one into 255-byte chunks) */
        value: string;
        /** MX preference */
        priority?: number;
        /** verified: needed for the domain to be served · signing: needed for DKIM-signed outbound mail · null: advisory */
        requiredFor: "verified" | "signing" | null;
        /** Result of the last verify (unchecked before the first) */
        status: "unchecked" | "found" | "missing" | "mismatch";
        /** What DNS answered at that name at the last verify */
        foundValues: string[];
        /** Why the lookup itself failed (DNS server unreachable, SERVFAIL); null when DNS answered */
        error: string | null;
        /** What to change when the record is missing or differs */
        hint: string | null;
      }[];
      createdAt: string;
      verifiedAt: string | null;
      lastCheckedAt: string | null;
    };
  };
  /** Console dashboard: counts, top labels and recent mail — `GET /v1/console/summary` */
  "console.summary": {
    method: "GET";
    path: "/v1/console/summary";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** How many recent messages (1-100, default 10) */
      recent?: number;
      /** How many top labels (1-100, default 10) */
      labels?: number;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      generatedAt: string;
      /** Start of "today" for the *Today counts: 00:00 UTC */
      dayStartedAt: string;
      scope: {
        /** The key's label prefix; null: every inbox of the team */
        labelPrefix: string | null;
      };
      inboxes: {
        total: number;
        withCallback: number;
      };
      messages: {
        /** Messages received */
        received: number;
        /** Messages received since dayStartedAt */
        receivedToday: number;
        /** Messages in which a code or a verification link was found */
        verified: number;
        verifiedToday: number;
      };
      callbacks: {
        delivered: number;
        /** Not tried yet */
        pending: number;
        /** Failed at least once; another attempt is due */
        retrying: number;
        /** Given up (failed, gone or refused) */
        failed: number;
        /** retrying + failed */
        failing: number;
      };
      topLabels: {
        label: string;
        inboxes: number;
        messages: number;
      }[];
      recentActivity: {
        messageId: string;
        inboxId: string;
        from: {
          name: string;
          address: string;
        } | null;
        to: {
          name: string;
          address: string;
        }[];
        cc: {
          name: string;
          address: string;
        }[];
        subject: string;
        receivedAt: string;
        size: number;
        /** The message has attachments (inline parts, images drawn inside the HTML, do not count) */
        hasAttachments: boolean;
        /** Attachments, not counting inline parts (see attachments[].inline) */
        attachmentCount: number;
        hasRaw: boolean;
        rawUrl: string;
        verification: {
          otp: string | null;
          primaryLink: string | null;
        };
        /** How the message arrived: "smtp", "simulate", "webhook:<provider>" (mail injected over an inbound webhook), or "send" (sent from an inboxd inbox) */
        via: string;
        /** "inbound": received by this inbox; "outbound": the copy of a message this inbox sent (never counted as received mail) */
        direction: "inbound" | "outbound";
        /** Labels of the message (README "Labels by rule"): the tag of a plus address (user+tag@…), X-Tags header values, and labels added by the team's label rules; in message lists and reads, and in message.received events (SSE, callbacks) */
        labels?: string[];
        /** The conversation it belongs to (thr_…; GET /v1/inboxes/:id/threads/:threadId); null only for mail not yet in an inbox */
        threadId: string | null;
        /** Read state: true once a POP3 client retrieved it or an IMAP client set \Seen (README "POP3 and IMAP"); false for new mail */
        seen: boolean;
        address: string;
        label: string | null;
      }[];
    };
  };
  /** Console inbox page: the inbox, its recent mail and its callback deliveries — `GET /v1/console/inboxes/{id}` */
  "console.inbox": {
    method: "GET";
    path: "/v1/console/inboxes/{id}";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: {
      /** How many messages and callback attempts (1-100, default 20) */
      limit?: number;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      inbox: {
        /** Identifier of the inbox (inb_…) */
        inboxId: string;
        /** The e-mail address to give to a signup form */
        address: string;
        /** CI run id or other grouping label */
        label: string | null;
        ttlMinutes: number;
        createdAt: string;
        expiresAt: string;
        callbackUrl: string | null;
        /** Messages delivered to this inbox so far */
        messagesReceived: number;
        /** Checks run on every arrival (the checks option on create); reported as message.checked on SSE and callbacks */
        checks?: string[];
      };
      messages: {
        counts: {
          /** Messages received */
          received: number;
          /** Messages received since dayStartedAt */
          receivedToday: number;
          /** Messages in which a code or a verification link was found */
          verified: number;
          verifiedToday: number;
        };
        recent: {
          messageId: string;
          inboxId: string;
          from: {
            name: string;
            address: string;
          } | null;
          to: {
            name: string;
            address: string;
          }[];
          cc: {
            name: string;
            address: string;
          }[];
          subject: string;
          receivedAt: string;
          size: number;
          /** The message has attachments (inline parts, images drawn inside the HTML, do not count) */
          hasAttachments: boolean;
          /** Attachments, not counting inline parts (see attachments[].inline) */
          attachmentCount: number;
          hasRaw: boolean;
          rawUrl: string;
          verification: {
            otp: string | null;
            primaryLink: string | null;
          };
          /** How the message arrived: "smtp", "simulate", "webhook:<provider>" (mail injected over an inbound webhook), or "send" (sent from an inboxd inbox) */
          via: string;
          /** "inbound": received by this inbox; "outbound": the copy of a message this inbox sent (never counted as received mail) */
          direction: "inbound" | "outbound";
          /** Labels of the message (README "Labels by rule"): the tag of a plus address (user+tag@…), X-Tags header values, and labels added by the team's label rules; in message lists and reads, and in message.received events (SSE, callbacks) */
          labels?: string[];
          /** The conversation it belongs to (thr_…; GET /v1/inboxes/:id/threads/:threadId); null only for mail not yet in an inbox */
          threadId: string | null;
          /** Read state: true once a POP3 client retrieved it or an IMAP client set \Seen (README "POP3 and IMAP"); false for new mail */
          seen: boolean;
        }[];
      };
      callbacks: {
        callbackUrl: string | null;
        deliveries: {
          delivered: number;
          /** Not tried yet */
          pending: number;
          /** Failed at least once; another attempt is due */
          retrying: number;
          /** Given up (failed, gone or refused) */
          failed: number;
          /** retrying + failed */
          failing: number;
        };
        /** Newest first */
        recentAttempts: {
          /** Same for every attempt of one delivery; sent as the webhook-id header */
          deliveryId: string;
          messageId: string;
          event: string;
          url: string;
          /** 1 for the first try, up to 6 */
          attempt: number;
          /** HTTP status of the answer; null when none came (timeout, refused, network error) */
          statusCode: number | null;
          error: string | null;
          durationMs: number;
          at: string;
          /** When the next attempt is due; null when this was the last one */
          nextRetryAt: string | null;
          delivered: boolean;
        }[];
      };
      /** Its newest threads, by last activity (GET /v1/inboxes/:id/threads pages them all) */
      threads: {
        /** Identifier of the thread (thr_…) */
        threadId: string;
        inboxId: string;
        /** Subject of the conversation’s first message */
        subject: string;
        messageCount: number;
        /** Sender and recipient addresses seen in the thread (lower-case, at most 50) */
        participants: string[];
        firstMessageAt: string;
        /** When its newest message arrived (lists are ordered by this, newest first) */
        lastMessageAt: string;
        /** The newest message (msg_…) */
        lastMessageId: string | null;
        /** The start of the newest message’s text, quoted lines left out */
        snippet: string;
      }[];
    };
  };
  /** Mailbox provider status — `GET /v1/providers/mailbox` */
  "mailbox.status": {
    method: "GET";
    path: "/v1/providers/mailbox";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      /** At least one remote mailbox account is connected */
      configured: boolean;
      local: {
        /** Always: inboxd’s own inboxes need no account */
        available: true;
        description: string;
      };
      /** What the tools use without accountId: the only account, "local" with none, null with several */
      defaultAccount: string | null;
      accounts: {
        /** Account id (pac_…) */
        id: string;
        kind: "mailbox";
        /** imap or gmail */
        provider: string;
        /** The mailbox address */
        address: string;
        label: string | null;
        /** connected, or error when the server failed the last time it was used */
        status: "connected" | "error";
        lastError: string | null;
        lastSyncAt: string | null;
        createdAt: string;
      }[];
    };
  };
  /** List connected mailbox accounts — `GET /v1/providers/mailbox/accounts` */
  "mailbox.list_accounts": {
    method: "GET";
    path: "/v1/providers/mailbox/accounts";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        /** Account id (pac_…) */
        id: string;
        kind: "mailbox";
        /** imap or gmail */
        provider: string;
        /** The mailbox address */
        address: string;
        label: string | null;
        /** connected, or error when the server failed the last time it was used */
        status: "connected" | "error";
        lastError: string | null;
        lastSyncAt: string | null;
        createdAt: string;
      }[];
      local: {
        /** Always: inboxd’s own inboxes need no account */
        available: true;
        description: string;
      };
    };
  };
  /** Connect a mailbox account — `POST /v1/providers/mailbox/accounts` */
  "mailbox.connect": {
    method: "POST";
    path: "/v1/providers/mailbox/accounts";
    status: 201;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** imap (any IMAP server, with optional SMTP) or gmail (the Gmail REST API) */
      provider: "imap" | "gmail";
      /** A name for the account, e.g. "support inbox" */
      label?: string;
      /** imap: the IMAP server host name */
      host?: string;
      /** imap: the IMAP port (default 993) */
      port?: number;
      /** imap: TLS from the start (default: true on port 993; otherwise STARTTLS when offered) */
      secure?: boolean;
      /** imap: the login user name */
      user?: string;
      /** imap: the login password (stored sealed, never returned) */
      password?: string;
      /** imap: the mailbox’s e-mail address (default the user name when it is one) */
      address?: string;
      /** imap/smtp: accept a self-signed TLS certificate (lab servers only) */
      tlsInsecure?: boolean;
      /** imap: SMTP server for this mailbox (stored with it; drafts never send) */
      smtpHost?: string;
      /** imap: SMTP port (default 587) */
      smtpPort?: number;
      /** imap: SMTP over TLS from the start (default: true on port 465) */
      smtpSecure?: boolean;
      /** imap: SMTP login user (omit for no SMTP AUTH) */
      smtpUser?: string;
      /** imap: SMTP login password (stored sealed) */
      smtpPassword?: string;
      /** gmail: the OAuth client id */
      clientId?: string;
      /** gmail: the OAuth client secret (stored sealed) */
      clientSecret?: string;
      /** gmail: an OAuth refresh token with a Gmail scope (stored sealed) */
      refreshToken?: string;
      /** gmail: a current access token, if you have one (else one is fetched) */
      accessToken?: string;
    };
    bodyRequired: true;
    response: {
      /** Account id (pac_…) */
      id: string;
      kind: "mailbox";
      /** imap or gmail */
      provider: string;
      /** The mailbox address */
      address: string;
      label: string | null;
      /** connected, or error when the server failed the last time it was used */
      status: "connected" | "error";
      lastError: string | null;
      lastSyncAt: string | null;
      createdAt: string;
    };
  };
  /** Disconnect a mailbox account — `DELETE /v1/providers/mailbox/accounts/{accountId}` */
  "mailbox.disconnect": {
    method: "DELETE";
    path: "/v1/providers/mailbox/accounts/{accountId}";
    status: 200;
    pathParams: {
      /** The account (pac_…) */
      accountId: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      deleted: true;
      accountId: string;
    };
  };
  /** List mailbox threads — `GET /v1/providers/mailbox/threads` */
  "mailbox.list_threads": {
    method: "GET";
    path: "/v1/providers/mailbox/threads";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** The mailbox: a connected account id (pac_…) or "local" for inboxd’s own inboxes; default the only connected account, else local */
      accountId?: string;
      /** Search: Gmail search syntax on Gmail (and Gmail over IMAP), IMAP TEXT search elsewhere, inboxd’s search language locally */
      query?: string;
      /** IMAP folder (default INBOX), Gmail label id (INBOX, UNREAD, Label_…), or for the local mailbox an inbox id (inb_…) or a label prefix */
      folder?: string;
      /** nextCursor of the previous page */
      cursor?: string;
      /** Threads per page, 1-100 (default 25) */
      limit?: number;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      /** "local" or the account id used */
      accountId: string;
      provider: "local" | "imap" | "gmail";
      items: {
        /** Pass to svc_gmail_read_thread or svc_workspace_execute_gmail_draft */
        threadId: string;
        subject: string;
        snippet: string;
        /** Messages in the thread (IMAP lists: within the page) */
        messageCount: number;
        participants: string[];
        lastMessageAt: string | null;
        unread: boolean;
        folder: string | null;
      }[];
      nextCursor: string | null;
    };
  };
  /** Read a mailbox thread — `GET /v1/providers/mailbox/threads/{threadId}` */
  "mailbox.read_thread": {
    method: "GET";
    path: "/v1/providers/mailbox/threads/{threadId}";
    status: 200;
    pathParams: {
      /** A threadId from svc_gmail_list_threads of the same account */
      threadId: string;
    };
    query: {
      /** The mailbox: a connected account id (pac_…) or "local" for inboxd’s own inboxes; default the only connected account, else local */
      accountId?: string;
      /** Newest messages returned, 1-100 (default 50) */
      maxMessages?: number;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      /** Pass to svc_gmail_read_thread or svc_workspace_execute_gmail_draft */
      threadId: string;
      subject: string;
      snippet: string;
      /** Messages in the thread (IMAP lists: within the page) */
      messageCount: number;
      participants: string[];
      lastMessageAt: string | null;
      unread: boolean;
      folder: string | null;
      /** "local" or the account id used */
      accountId: string;
      provider: "local" | "imap" | "gmail";
      messages: {
        id: string;
        from: {
          name: string;
          address: string;
        } | null;
        to: {
          name: string;
          address: string;
        }[];
        cc: {
          name: string;
          address: string;
        }[];
        subject: string;
        date: string | null;
        /** The body as text (HTML converted) */
        text: string;
        /** Written by the mailbox owner */
        fromMe: boolean;
        unread: boolean;
        attachments: {
          filename: string | null;
          contentType: string;
          size: number;
        }[];
      }[];
      /** Older messages were left out */
      truncated: boolean;
    };
  };
  /** Triage mailbox threads — `GET /v1/providers/mailbox/triage` */
  "mailbox.triage": {
    method: "GET";
    path: "/v1/providers/mailbox/triage";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** The mailbox: a connected account id (pac_…) or "local" for inboxd’s own inboxes; default the only connected account, else local */
      accountId?: string;
      /** IMAP folder (default INBOX), Gmail label id (INBOX, UNREAD, Label_…), or for the local mailbox an inbox id (inb_…) or a label prefix */
      folder?: string;
      /** Search: Gmail search syntax on Gmail (and Gmail over IMAP), IMAP TEXT search elsewhere, inboxd’s search language locally */
      query?: string;
      /** Threads classified, newest first, 1-50 (default 20) */
      limit?: number;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      /** "local" or the account id used */
      accountId: string;
      provider: "local" | "imap" | "gmail";
      items: {
        threadId: string;
        subject: string;
        /** Sender of the newest received message */
        from: string | null;
        lastMessageAt: string | null;
        messageCount: number;
        unread: boolean;
        /** needs_reply · waiting (you wrote last) · fyi · newsletter · verification · receipt · notification */
        category: "needs_reply" | "waiting" | "fyi" | "newsletter" | "verification" | "receipt" | "notification";
        /** Why, in a sentence */
        reason: string;
        /** What the category rests on */
        evidence: {
          from: string | null;
          subject: string;
          /** The settings rule (1-based) that decided */
          rule?: number;
          /** The header that decided (List-Unsubscribe, Auto-Submitted, …) */
          header?: string;
          /** verification: the one-time code */
          code?: string | null;
          /** verification: the verification link */
          link?: string | null;
          /** The words that decided */
          matched?: string;
        };
      }[];
      /** Threads per category */
      counts: Record<string, number>;
    };
  };
  /** Mailbox digest — `GET /v1/providers/mailbox/digest` */
  "mailbox.digest": {
    method: "GET";
    path: "/v1/providers/mailbox/digest";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** The mailbox: a connected account id (pac_…) or "local" for inboxd’s own inboxes; default the only connected account, else local */
      accountId?: string;
      /** Start of the period (ISO 8601); default now minus the digest window */
      since?: string;
      /** IMAP folder (default INBOX), Gmail label id (INBOX, UNREAD, Label_…), or for the local mailbox an inbox id (inb_…) or a label prefix */
      folder?: string;
      /** Most threads looked at, newest first, 1-200 (default 100) */
      limit?: number;
      /** Threads shown per category, 1-20 (default 5) */
      top?: number;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      /** "local" or the account id used */
      accountId: string;
      provider: "local" | "imap" | "gmail";
      since: string;
      until: string;
      /** The time zone of the mailbox settings */
      timezone: string;
      /** Threads with activity in the period (up to limit) */
      total: number;
      groups: {
        category: "needs_reply" | "waiting" | "fyi" | "newsletter" | "verification" | "receipt" | "notification";
        count: number;
        top: {
          threadId: string;
          subject: string;
          /** Sender of the newest received message */
          from: string | null;
          lastMessageAt: string | null;
          messageCount: number;
          unread: boolean;
          /** needs_reply · waiting (you wrote last) · fyi · newsletter · verification · receipt · notification */
          category: "needs_reply" | "waiting" | "fyi" | "newsletter" | "verification" | "receipt" | "notification";
          /** Why, in a sentence */
          reason: string;
          /** What the category rests on */
          evidence: {
            from: string | null;
            subject: string;
            /** The settings rule (1-based) that decided */
            rule?: number;
            /** The header that decided (List-Unsubscribe, Auto-Submitted, …) */
            header?: string;
            /** verification: the one-time code */
            code?: string | null;
            /** verification: the verification link */
            link?: string | null;
            /** The words that decided */
            matched?: string;
          };
        }[];
      }[];
    };
  };
  /** Get mailbox settings — `GET /v1/providers/mailbox/settings` */
  "mailbox.get_settings": {
    method: "GET";
    path: "/v1/providers/mailbox/settings";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** The mailbox: a connected account id (pac_…) or "local" for inboxd’s own inboxes; default the only connected account, else local */
      accountId?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      /** Rules checked first, in order; the first match decides the category */
      triageRules: {
        /** Sender address (exact, case-insensitive), e.g. boss@example.com */
        from?: string;
        /** Sender domain; also matches its subdomains, e.g. example.com */
        domain?: string;
        /** Words the subject contains (case-insensitive) */
        subjectContains?: string;
        /** The category a matching thread gets */
        category: "needs_reply" | "waiting" | "fyi" | "newsletter" | "verification" | "receipt" | "notification";
        /** Why, shown as the triage reason */
        reason?: string;
      }[];
      /** Default look-back of svc_gmail_digest, in hours */
      digestWindowHours: number;
      /** Appended to drafts created by svc_workspace_execute_gmail_draft */
      signature: string | null;
      /** IANA time zone for digests, e.g. Europe/Berlin */
      timezone: string;
      /** "local" or the account id the settings belong to */
      accountId: string;
      /** When they were last set; null: the defaults */
      updatedAt: string | null;
    };
  };
  /** Set mailbox settings — `PUT /v1/providers/mailbox/settings` */
  "mailbox.set_settings": {
    method: "PUT";
    path: "/v1/providers/mailbox/settings";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** The mailbox: a connected account id (pac_…) or "local" for inboxd’s own inboxes; default the only connected account, else local */
      accountId?: string;
      /** Replaces the rules: each {from | domain | subjectContains, category, reason?} */
      triageRules?: {
        /** Sender address (exact, case-insensitive), e.g. boss@example.com */
        from?: string;
        /** Sender domain; also matches its subdomains, e.g. example.com */
        domain?: string;
        /** Words the subject contains (case-insensitive) */
        subjectContains?: string;
        /** The category a matching thread gets */
        category: "needs_reply" | "waiting" | "fyi" | "newsletter" | "verification" | "receipt" | "notification";
        /** Why, shown as the triage reason */
        reason?: string;
      }[];
      /** Default look-back of svc_gmail_digest in hours (1-744) */
      digestWindowHours?: number;
      /** Signature appended to drafts; null removes it */
      signature?: string | null;
      /** IANA time zone for digests, e.g. Europe/Berlin */
      timezone?: string;
    };
    bodyRequired: false;
    response: {
      /** Rules checked first, in order; the first match decides the category */
      triageRules: {
        /** Sender address (exact, case-insensitive), e.g. boss@example.com */
        from?: string;
        /** Sender domain; also matches its subdomains, e.g. example.com */
        domain?: string;
        /** Words the subject contains (case-insensitive) */
        subjectContains?: string;
        /** The category a matching thread gets */
        category: "needs_reply" | "waiting" | "fyi" | "newsletter" | "verification" | "receipt" | "notification";
        /** Why, shown as the triage reason */
        reason?: string;
      }[];
      /** Default look-back of svc_gmail_digest, in hours */
      digestWindowHours: number;
      /** Appended to drafts created by svc_workspace_execute_gmail_draft */
      signature: string | null;
      /** IANA time zone for digests, e.g. Europe/Berlin */
      timezone: string;
      /** "local" or the account id the settings belong to */
      accountId: string;
      /** When they were last set; null: the defaults */
      updatedAt: string | null;
    };
  };
  /** Calendar providers: local calendar and connected accounts — `GET /v1/providers/calendar` */
  "calendar.status": {
    method: "GET";
    path: "/v1/providers/calendar";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      /** The local calendar always works; remote accounts are optional */
      configured: true;
      /** False when the server has no INBOXD_SECRET_KEY (connecting is refused) */
      canConnect: boolean;
      local: {
        /** Events in the local calendar this key can see */
        events: number;
        /** Mail received up to this time has been read for invitations */
        syncedTo: string | null;
        /** Calendar parts of received mail that were not applied, with why */
        recentlySkipped: {
          inboxId: string | null;
          messageId: string;
          reason: string;
        }[];
      };
      /** Connected remote calendars (not shown to label-scoped keys) */
      accounts: {
        id: string;
        kind: string;
        /** caldav or google */
        provider: string;
        /** What the account is known by: the CalDAV user and server, the Google calendar id */
        address: string;
        label: string | null;
        status: "connected" | "error";
        lastError: string | null;
        lastSyncAt: string | null;
        createdAt: string;
      }[];
      howToConnect: string;
    };
  };
  /** List calendar accounts — `GET /v1/providers/calendar/accounts` */
  "calendar.list_accounts": {
    method: "GET";
    path: "/v1/providers/calendar/accounts";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      local: {
        /** Events in the local calendar this key can see */
        events: number;
        /** Mail received up to this time has been read for invitations */
        syncedTo: string | null;
        /** Calendar parts of received mail that were not applied, with why */
        recentlySkipped: {
          inboxId: string | null;
          messageId: string;
          reason: string;
        }[];
        id: "local";
      };
      items: {
        id: string;
        kind: string;
        /** caldav or google */
        provider: string;
        /** What the account is known by: the CalDAV user and server, the Google calendar id */
        address: string;
        label: string | null;
        status: "connected" | "error";
        lastError: string | null;
        lastSyncAt: string | null;
        createdAt: string;
      }[];
    };
  };
  /** Connect a CalDAV or Google Calendar account — `POST /v1/providers/calendar/accounts` */
  "calendar.connect": {
    method: "POST";
    path: "/v1/providers/calendar/accounts";
    status: 201;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** caldav (any CalDAV server) or google (Google Calendar API) */
      provider: "caldav" | "google";
      /** A name for the account, e.g. "work" */
      label?: string;
      /** caldav: the server or principal URL, e.g. https://dav.example.com/ */
      serverUrl?: string;
      /** caldav: user name */
      username?: string;
      /** caldav: password or app password */
      password?: string;
      /** caldav: the calendar new events go to (default the first one) */
      calendarUrl?: string;
      /** google: OAuth refresh token */
      refreshToken?: string;
      /** google: OAuth client id */
      clientId?: string;
      /** google: OAuth client secret */
      clientSecret?: string;
      /** google: a current access token (optional; refreshed when needed) */
      accessToken?: string;
      /** google: the calendar new events go to (default primary) */
      calendarId?: string;
    };
    bodyRequired: true;
    response: {
      account: {
        id: string;
        kind: string;
        /** caldav or google */
        provider: string;
        /** What the account is known by: the CalDAV user and server, the Google calendar id */
        address: string;
        label: string | null;
        status: "connected" | "error";
        lastError: string | null;
        lastSyncAt: string | null;
        createdAt: string;
      };
      calendars: {
        id: string;
        name: string;
        primary: boolean;
      }[];
    };
  };
  /** Disconnect a calendar account (forgets its credentials) — `DELETE /v1/providers/calendar/accounts/{id}` */
  "calendar.disconnect": {
    method: "DELETE";
    path: "/v1/providers/calendar/accounts/{id}";
    status: 200;
    pathParams: {
      /** Calendar account id (pac_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      deleted: true;
      accountId: string;
    };
  };
  /** List events in a time range (recurring events expanded) — `GET /v1/providers/calendar/events` */
  "calendar.list_events": {
    method: "GET";
    path: "/v1/providers/calendar/events";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Start of the range, ISO 8601 with offset, e.g. 2026-11-23T00:00:00Z */
      timeMin: string;
      /** End of the range (exclusive), ISO 8601 with offset */
      timeMax: string;
      /** IANA time zone (e.g. Europe/Berlin) for local times, working hours, all-day and floating events; default UTC */
      timeZone?: string;
      /** Calendar accounts to read: "local" (invitations received by inboxd) and/or connected account ids (pac_…), as a list or comma-separated; default all */
      accountIds?: string | string[];
      /** Only these calendars of the accounts (CalDAV calendar URL, Google calendar id); default every calendar */
      calendarIds?: string | string[];
      /** At most this many events (default 250) */
      maxResults?: number;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      timeZone: string;
      events: {
        /** "local" or the connected account (pac_…) the event comes from */
        accountId: string;
        provider: "local" | "caldav" | "google";
        calendarId: string;
        /** Provider event id (local cev_…, CalDAV object URL, Google event id) */
        eventId: string;
        /** iCalendar UID (the same meeting has the same UID in every calendar) */
        uid: string;
        title: string;
        description: string | null;
        location: string | null;
        /** Start instant, UTC ISO 8601 */
        start: string;
        /** End instant, UTC ISO 8601 */
        end: string;
        /** Start in the requested timeZone, ISO 8601 with offset */
        startLocal: string;
        /** End in the requested timeZone, ISO 8601 with offset */
        endLocal: string;
        /** The requested time zone */
        timeZone: string;
        allDay: boolean;
        /** All-day events: first date (YYYY-MM-DD) */
        startDate: string | null;
        /** All-day events: the date after the last day (exclusive) */
        endDate: string | null;
        /** The zone the event was written in (TZID), if any */
        eventTimeZone: string | null;
        organizer: string | null;
        attendees: {
          email: string;
          name: string | null;
          /** accepted, declined, tentative, needs-action, or null */
          response: string | null;
        }[];
        status: "confirmed" | "tentative" | "cancelled";
        /** False for events marked free (transparent) */
        busy: boolean;
        recurring: boolean;
        /** Recurring events: the original start of this instance (UTC) */
        recurrenceId: string | null;
        /** Local calendar: the inbox the invitation arrived in */
        inboxId?: string | null;
        /** Local calendar: the message that carried the invitation */
        messageId?: string | null;
      }[];
      /** More events matched than maxResults */
      truncated: boolean;
      /** Every calendar account read, and whether it answered */
      sources: {
        accountId: string;
        provider: string;
        ok: boolean;
        /** Why this calendar is missing from the answer */
        error: string | null;
      }[];
      /** Data skipped or guessed: malformed iCalendar, unknown time zones read as UTC, unreadable accounts */
      warnings: string[];
    };
  };
  /** Free/busy over calendars: busy blocks and free slots in working hours — `GET /v1/providers/calendar/availability` */
  "calendar.availability": {
    method: "GET";
    path: "/v1/providers/calendar/availability";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Start of the range, ISO 8601 with offset, e.g. 2026-11-23T00:00:00Z */
      timeMin: string;
      /** End of the range (exclusive), ISO 8601 with offset */
      timeMax: string;
      /** IANA time zone (e.g. Europe/Berlin) for local times, working hours, all-day and floating events; default UTC */
      timeZone?: string;
      /** Calendar accounts to read: "local" (invitations received by inboxd) and/or connected account ids (pac_…), as a list or comma-separated; default all */
      accountIds?: string | string[];
      /** Only these calendars of the accounts (CalDAV calendar URL, Google calendar id); default every calendar */
      calendarIds?: string | string[];
      /** Shortest free slot to list, minutes (default 30) */
      durationMinutes?: number;
      /** Working hours start, local HH:MM in timeZone (default 09:00) */
      workdayStart?: string;
      /** Working hours end, local HH:MM in timeZone (default 17:00) */
      workdayEnd?: string;
      /** Working days: mon,tue,wed,thu,fri,sat,sun as a list or comma-separated (default mon-fri) */
      workDays?: string | string[];
    };
    body: undefined;
    bodyRequired: false;
    response: {
      timeZone: string;
      busy: {
        /** UTC ISO 8601 */
        start: string;
        /** UTC ISO 8601 */
        end: string;
        /** In the requested timeZone */
        startLocal: string;
        /** In the requested timeZone */
        endLocal: string;
        minutes: number;
      }[];
      free: {
        /** UTC ISO 8601 */
        start: string;
        /** UTC ISO 8601 */
        end: string;
        /** In the requested timeZone */
        startLocal: string;
        /** In the requested timeZone */
        endLocal: string;
        minutes: number;
      }[];
      workingHours: {
        start: string;
        end: string;
        days: number[];
      };
      /** False when some account could not be read (see sources): free time may not be free */
      complete: boolean;
      /** Every calendar account read, and whether it answered */
      sources: {
        accountId: string;
        provider: string;
        ok: boolean;
        /** Why this calendar is missing from the answer */
        error: string | null;
      }[];
      /** Data skipped or guessed: malformed iCalendar, unknown time zones read as UTC, unreadable accounts */
      warnings: string[];
    };
  };
  /** Events overlapping a proposed slot — `GET /v1/providers/calendar/conflicts` */
  "calendar.check_conflicts": {
    method: "GET";
    path: "/v1/providers/calendar/conflicts";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Proposed start, ISO 8601 with offset */
      start: string;
      /** Proposed end, ISO 8601 with offset */
      end: string;
      /** IANA time zone (e.g. Europe/Berlin) for local times, working hours, all-day and floating events; default UTC */
      timeZone?: string;
      /** Calendar accounts to read: "local" (invitations received by inboxd) and/or connected account ids (pac_…), as a list or comma-separated; default all */
      accountIds?: string | string[];
      /** Only these calendars of the accounts (CalDAV calendar URL, Google calendar id); default every calendar */
      calendarIds?: string | string[];
    };
    body: undefined;
    bodyRequired: false;
    response: {
      conflict: boolean;
      conflicts: {
        /** "local" or the connected account (pac_…) the event comes from */
        accountId: string;
        provider: "local" | "caldav" | "google";
        calendarId: string;
        /** Provider event id (local cev_…, CalDAV object URL, Google event id) */
        eventId: string;
        /** iCalendar UID (the same meeting has the same UID in every calendar) */
        uid: string;
        title: string;
        description: string | null;
        location: string | null;
        /** Start instant, UTC ISO 8601 */
        start: string;
        /** End instant, UTC ISO 8601 */
        end: string;
        /** Start in the requested timeZone, ISO 8601 with offset */
        startLocal: string;
        /** End in the requested timeZone, ISO 8601 with offset */
        endLocal: string;
        /** The requested time zone */
        timeZone: string;
        allDay: boolean;
        /** All-day events: first date (YYYY-MM-DD) */
        startDate: string | null;
        /** All-day events: the date after the last day (exclusive) */
        endDate: string | null;
        /** The zone the event was written in (TZID), if any */
        eventTimeZone: string | null;
        organizer: string | null;
        attendees: {
          email: string;
          name: string | null;
          /** accepted, declined, tentative, needs-action, or null */
          response: string | null;
        }[];
        status: "confirmed" | "tentative" | "cancelled";
        /** False for events marked free (transparent) */
        busy: boolean;
        recurring: boolean;
        /** Recurring events: the original start of this instance (UTC) */
        recurrenceId: string | null;
        /** Local calendar: the inbox the invitation arrived in */
        inboxId?: string | null;
        /** Local calendar: the message that carried the invitation */
        messageId?: string | null;
      }[];
      /** False when some account could not be read */
      complete: boolean;
      /** Every calendar account read, and whether it answered */
      sources: {
        accountId: string;
        provider: string;
        ok: boolean;
        /** Why this calendar is missing from the answer */
        error: string | null;
      }[];
      /** Data skipped or guessed: malformed iCalendar, unknown time zones read as UTC, unreadable accounts */
      warnings: string[];
    };
  };
  /** Ranked meeting times free in every calendar — `GET /v1/providers/calendar/suggest` */
  "calendar.suggest_meeting": {
    method: "GET";
    path: "/v1/providers/calendar/suggest";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Start of the range, ISO 8601 with offset, e.g. 2026-11-23T00:00:00Z */
      timeMin: string;
      /** End of the range (exclusive), ISO 8601 with offset */
      timeMax: string;
      /** IANA time zone (e.g. Europe/Berlin) for local times, working hours, all-day and floating events; default UTC */
      timeZone?: string;
      /** Calendar accounts to read: "local" (invitations received by inboxd) and/or connected account ids (pac_…), as a list or comma-separated; default all */
      accountIds?: string | string[];
      /** Only these calendars of the accounts (CalDAV calendar URL, Google calendar id); default every calendar */
      calendarIds?: string | string[];
      /** Meeting length in minutes */
      durationMinutes: number;
      /** Free minutes required before the meeting */
      bufferBeforeMinutes?: number;
      /** Free minutes required after the meeting */
      bufferAfterMinutes?: number;
      /** How many slots to return (default 5) */
      count?: number;
      /** Slots start on this grid of local minutes (default 30) */
      stepMinutes?: number;
      /** Working hours start, local HH:MM in timeZone (default 09:00) */
      workdayStart?: string;
      /** Working hours end, local HH:MM in timeZone (default 17:00) */
      workdayEnd?: string;
      /** Working days: mon,tue,wed,thu,fri,sat,sun as a list or comma-separated (default mon-fri) */
      workDays?: string | string[];
    };
    body: undefined;
    bodyRequired: false;
    response: {
      timeZone: string;
      slots: {
        /** UTC ISO 8601 */
        start: string;
        /** UTC ISO 8601 */
        end: string;
        /** In the requested timeZone */
        startLocal: string;
        /** In the requested timeZone */
        endLocal: string;
        minutes: number;
        score: number;
        reasons: string[];
      }[];
      /** How many calendars were checked */
      calendars: number;
      complete: boolean;
      /** Every calendar account read, and whether it answered */
      sources: {
        accountId: string;
        provider: string;
        ok: boolean;
        /** Why this calendar is missing from the answer */
        error: string | null;
      }[];
      /** Data skipped or guessed: malformed iCalendar, unknown time zones read as UTC, unreadable accounts */
      warnings: string[];
    };
  };
  /** A day's events in order, with the gaps between them — `GET /v1/providers/calendar/agenda` */
  "calendar.agenda": {
    method: "GET";
    path: "/v1/providers/calendar/agenda";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** The day, YYYY-MM-DD (default today in timeZone) */
      date?: string;
      /** IANA time zone (e.g. Europe/Berlin) for local times, working hours, all-day and floating events; default UTC */
      timeZone?: string;
      /** Calendar accounts to read: "local" (invitations received by inboxd) and/or connected account ids (pac_…), as a list or comma-separated; default all */
      accountIds?: string | string[];
      /** Only these calendars of the accounts (CalDAV calendar URL, Google calendar id); default every calendar */
      calendarIds?: string | string[];
      /** Working hours start, local HH:MM in timeZone (default 09:00) */
      workdayStart?: string;
      /** Working hours end, local HH:MM in timeZone (default 17:00) */
      workdayEnd?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      date: string;
      timeZone: string;
      /** Local midnight, UTC ISO */
      dayStart: string;
      /** The next local midnight, UTC ISO */
      dayEnd: string;
      /** Length of the day: 24, or 23/25 on a DST change */
      hours: number;
      events: {
        /** "local" or the connected account (pac_…) the event comes from */
        accountId: string;
        provider: "local" | "caldav" | "google";
        calendarId: string;
        /** Provider event id (local cev_…, CalDAV object URL, Google event id) */
        eventId: string;
        /** iCalendar UID (the same meeting has the same UID in every calendar) */
        uid: string;
        title: string;
        description: string | null;
        location: string | null;
        /** Start instant, UTC ISO 8601 */
        start: string;
        /** End instant, UTC ISO 8601 */
        end: string;
        /** Start in the requested timeZone, ISO 8601 with offset */
        startLocal: string;
        /** End in the requested timeZone, ISO 8601 with offset */
        endLocal: string;
        /** The requested time zone */
        timeZone: string;
        allDay: boolean;
        /** All-day events: first date (YYYY-MM-DD) */
        startDate: string | null;
        /** All-day events: the date after the last day (exclusive) */
        endDate: string | null;
        /** The zone the event was written in (TZID), if any */
        eventTimeZone: string | null;
        organizer: string | null;
        attendees: {
          email: string;
          name: string | null;
          /** accepted, declined, tentative, needs-action, or null */
          response: string | null;
        }[];
        status: "confirmed" | "tentative" | "cancelled";
        /** False for events marked free (transparent) */
        busy: boolean;
        recurring: boolean;
        /** Recurring events: the original start of this instance (UTC) */
        recurrenceId: string | null;
        /** Local calendar: the inbox the invitation arrived in */
        inboxId?: string | null;
        /** Local calendar: the message that carried the invitation */
        messageId?: string | null;
      }[];
      /** Free time between events inside working hours */
      gaps: {
        /** UTC ISO 8601 */
        start: string;
        /** UTC ISO 8601 */
        end: string;
        /** In the requested timeZone */
        startLocal: string;
        /** In the requested timeZone */
        endLocal: string;
        minutes: number;
      }[];
      /** Every calendar account read, and whether it answered */
      sources: {
        accountId: string;
        provider: string;
        ok: boolean;
        /** Why this calendar is missing from the answer */
        error: string | null;
      }[];
      /** Data skipped or guessed: malformed iCalendar, unknown time zones read as UTC, unreadable accounts */
      warnings: string[];
    };
  };
  /** List fault rules — `GET /v1/faults` */
  "faults.list": {
    method: "GET";
    path: "/v1/faults";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Only this label prefix's rules */
      labelPrefix?: string;
      /** Only this inbox's rules */
      inboxId?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        /** flt_…; a new id (and fresh counters) each time the scope is set */
        ruleId: string;
        scope: {
          kind: "global";
        } | {
          kind: "prefix";
          labelPrefix: string;
        } | {
          kind: "inbox";
          inboxId: string;
          address: string | null;
        };
        name: string | null;
        stage: "connect" | "ehlo" | "auth" | "mail" | "rcpt" | "data" | "end-of-data";
        /** All given fields must match; none = every session or recipient the scope covers */
        match: {
          /** Recipient address glob (stages rcpt, data, end-of-data) */
          recipient?: string;
          /** Envelope sender (MAIL FROM) glob (stages mail and later) */
          sender?: string;
          /** Glob on the label of the recipient's inbox (stages rcpt, data, end-of-data) */
          label?: string;
        };
        /** What happens when the rule fires */
        action: {
          type: "reply";
          /** SMTP reply code */
          code: number;
          /** Enhanced status code (RFC 3463), e.g. 4.2.2; its class must match the reply code */
          enhanced?: string;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          /** Close the connection without a reply */
          type: "disconnect";
        } | {
          type: "delay";
          /** Hold the reply this long */
          ms: number;
        } | {
          type: "throttle";
          /** Read DATA at most this fast (stage data) */
          bytesPerSecond: number;
        } | {
          type: "rate-limit";
          /** One token bucket per client address, or per recipient */
          per: "client" | "recipient";
          /** Messages let through per window */
          limit: number;
          /** The window; the bucket refills continuously */
          windowSeconds: number;
          code: 421 | 450 | 451 | 452;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          type: "greylist";
          /** A retry of the same sender/recipient/client triple is accepted this long after the first try */
          retryAfterSeconds: number;
        } | {
          type: "mailbox-full";
          /** false: 452 4.2.2 (temporary) · true: 552 5.2.2 */
          permanent: boolean;
        };
        /** When a matching rule fires (default always); counted per rule from its creation */
        mode: {
          type: "always";
        } | {
          type: "first";
          /** Fire on the first n matches only */
          n: number;
        } | {
          type: "every";
          /** Fire on match n, 2n, 3n, … */
          n: number;
        } | {
          type: "probability";
          /** Chance of firing, 0-1 */
          p: number;
          /** The same seed gives the same sequence of fired/not fired */
          seed: number;
        };
        /** Times it fired on this instance since it was set */
        fired: number;
        createdAt: string;
      }[];
      nextCursor: string | null;
    };
  };
  /** Set the global or label-prefix fault rules — `PUT /v1/faults` */
  "faults.set": {
    method: "PUT";
    path: "/v1/faults";
    status: 200;
    pathParams: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** Rules for inboxes whose label starts with this; absent: global rules (unscoped admin key) */
      labelPrefix?: string;
      /** The rules, in order (the first that replies or disconnects decides); at most 100 per scope; [] clears */
      rules: {
        /** Your name for the rule (shown in events) */
        name?: string;
        /** SMTP stage; default rcpt for rate-limit, greylist and mailbox-full, data for throttle; required otherwise */
        stage?: "connect" | "ehlo" | "auth" | "mail" | "rcpt" | "data" | "end-of-data";
        /** All given fields must match; none = every session or recipient the scope covers */
        match?: {
          /** Recipient address glob (stages rcpt, data, end-of-data) */
          recipient?: string;
          /** Envelope sender (MAIL FROM) glob (stages mail and later) */
          sender?: string;
          /** Glob on the label of the recipient's inbox (stages rcpt, data, end-of-data) */
          label?: string;
        };
        /** What happens when the rule fires */
        action: {
          type: "reply";
          /** SMTP reply code */
          code: number;
          /** Enhanced status code (RFC 3463), e.g. 4.2.2; its class must match the reply code */
          enhanced?: string;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          /** Close the connection without a reply */
          type: "disconnect";
        } | {
          type: "delay";
          /** Hold the reply this long */
          ms: number;
        } | {
          type: "throttle";
          /** Read DATA at most this fast (stage data) */
          bytesPerSecond: number;
        } | {
          type: "rate-limit";
          /** One token bucket per client address, or per recipient */
          per?: "client" | "recipient";
          /** Messages let through per window */
          limit: number;
          /** The window; the bucket refills continuously */
          windowSeconds: number;
          code?: 421 | 450 | 451 | 452;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          type: "greylist";
          /** A retry of the same sender/recipient/client triple is accepted this long after the first try */
          retryAfterSeconds?: number;
        } | {
          type: "mailbox-full";
          /** false: 452 4.2.2 (temporary) · true: 552 5.2.2 */
          permanent?: boolean;
        };
        /** When a matching rule fires (default always); counted per rule from its creation */
        mode?: {
          type: "always";
        } | {
          type: "first";
          /** Fire on the first n matches only */
          n: number;
        } | {
          type: "every";
          /** Fire on match n, 2n, 3n, … */
          n: number;
        } | {
          type: "probability";
          /** Chance of firing, 0-1 */
          p: number;
          /** The same seed gives the same sequence of fired/not fired */
          seed: number;
        };
      }[];
    };
    bodyRequired: true;
    response: {
      rules: {
        /** flt_…; a new id (and fresh counters) each time the scope is set */
        ruleId: string;
        scope: {
          kind: "global";
        } | {
          kind: "prefix";
          labelPrefix: string;
        } | {
          kind: "inbox";
          inboxId: string;
          address: string | null;
        };
        name: string | null;
        stage: "connect" | "ehlo" | "auth" | "mail" | "rcpt" | "data" | "end-of-data";
        /** All given fields must match; none = every session or recipient the scope covers */
        match: {
          /** Recipient address glob (stages rcpt, data, end-of-data) */
          recipient?: string;
          /** Envelope sender (MAIL FROM) glob (stages mail and later) */
          sender?: string;
          /** Glob on the label of the recipient's inbox (stages rcpt, data, end-of-data) */
          label?: string;
        };
        /** What happens when the rule fires */
        action: {
          type: "reply";
          /** SMTP reply code */
          code: number;
          /** Enhanced status code (RFC 3463), e.g. 4.2.2; its class must match the reply code */
          enhanced?: string;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          /** Close the connection without a reply */
          type: "disconnect";
        } | {
          type: "delay";
          /** Hold the reply this long */
          ms: number;
        } | {
          type: "throttle";
          /** Read DATA at most this fast (stage data) */
          bytesPerSecond: number;
        } | {
          type: "rate-limit";
          /** One token bucket per client address, or per recipient */
          per: "client" | "recipient";
          /** Messages let through per window */
          limit: number;
          /** The window; the bucket refills continuously */
          windowSeconds: number;
          code: 421 | 450 | 451 | 452;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          type: "greylist";
          /** A retry of the same sender/recipient/client triple is accepted this long after the first try */
          retryAfterSeconds: number;
        } | {
          type: "mailbox-full";
          /** false: 452 4.2.2 (temporary) · true: 552 5.2.2 */
          permanent: boolean;
        };
        /** When a matching rule fires (default always); counted per rule from its creation */
        mode: {
          type: "always";
        } | {
          type: "first";
          /** Fire on the first n matches only */
          n: number;
        } | {
          type: "every";
          /** Fire on match n, 2n, 3n, … */
          n: number;
        } | {
          type: "probability";
          /** Chance of firing, 0-1 */
          p: number;
          /** The same seed gives the same sequence of fired/not fired */
          seed: number;
        };
        /** Times it fired on this instance since it was set */
        fired: number;
        createdAt: string;
      }[];
    };
  };
  /** Delete the global or label-prefix fault rules — `DELETE /v1/faults` */
  "faults.clear": {
    method: "DELETE";
    path: "/v1/faults";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Rules for inboxes whose label starts with this; absent: global rules (unscoped admin key) */
      labelPrefix?: string;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      deleted: number;
    };
  };
  /** The fault log — `GET /v1/faults/events` */
  "faults.events": {
    method: "GET";
    path: "/v1/faults/events";
    status: 200;
    pathParams: Record<string, never>;
    query: {
      /** Only events at or after this ISO 8601 time */
      since?: string;
      /** At most this many (1-500, default 100) */
      limit?: number;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        eventId: string;
        inboxId: string | null;
        /** null for a local-part shortcut */
        ruleId: string | null;
        source: "rule" | "shortcut";
        stage: string;
        action: string;
        /** The reply code sent (null for delay, throttle, disconnect) */
        code: number | null;
        reply: string | null;
        sender: string | null;
        recipient: string | null;
        /** The SMTP client address */
        client: string | null;
        at: string;
      }[];
      nextCursor: string | null;
    };
  };
  /** List an inbox's fault rules — `GET /v1/inboxes/{id}/faults` */
  "inboxes.faults.list": {
    method: "GET";
    path: "/v1/inboxes/{id}/faults";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        /** flt_…; a new id (and fresh counters) each time the scope is set */
        ruleId: string;
        scope: {
          kind: "global";
        } | {
          kind: "prefix";
          labelPrefix: string;
        } | {
          kind: "inbox";
          inboxId: string;
          address: string | null;
        };
        name: string | null;
        stage: "connect" | "ehlo" | "auth" | "mail" | "rcpt" | "data" | "end-of-data";
        /** All given fields must match; none = every session or recipient the scope covers */
        match: {
          /** Recipient address glob (stages rcpt, data, end-of-data) */
          recipient?: string;
          /** Envelope sender (MAIL FROM) glob (stages mail and later) */
          sender?: string;
          /** Glob on the label of the recipient's inbox (stages rcpt, data, end-of-data) */
          label?: string;
        };
        /** What happens when the rule fires */
        action: {
          type: "reply";
          /** SMTP reply code */
          code: number;
          /** Enhanced status code (RFC 3463), e.g. 4.2.2; its class must match the reply code */
          enhanced?: string;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          /** Close the connection without a reply */
          type: "disconnect";
        } | {
          type: "delay";
          /** Hold the reply this long */
          ms: number;
        } | {
          type: "throttle";
          /** Read DATA at most this fast (stage data) */
          bytesPerSecond: number;
        } | {
          type: "rate-limit";
          /** One token bucket per client address, or per recipient */
          per: "client" | "recipient";
          /** Messages let through per window */
          limit: number;
          /** The window; the bucket refills continuously */
          windowSeconds: number;
          code: 421 | 450 | 451 | 452;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          type: "greylist";
          /** A retry of the same sender/recipient/client triple is accepted this long after the first try */
          retryAfterSeconds: number;
        } | {
          type: "mailbox-full";
          /** false: 452 4.2.2 (temporary) · true: 552 5.2.2 */
          permanent: boolean;
        };
        /** When a matching rule fires (default always); counted per rule from its creation */
        mode: {
          type: "always";
        } | {
          type: "first";
          /** Fire on the first n matches only */
          n: number;
        } | {
          type: "every";
          /** Fire on match n, 2n, 3n, … */
          n: number;
        } | {
          type: "probability";
          /** Chance of firing, 0-1 */
          p: number;
          /** The same seed gives the same sequence of fired/not fired */
          seed: number;
        };
        /** Times it fired on this instance since it was set */
        fired: number;
        createdAt: string;
      }[];
      nextCursor: string | null;
    };
  };
  /** Set an inbox's fault rules — `PUT /v1/inboxes/{id}/faults` */
  "inboxes.faults.set": {
    method: "PUT";
    path: "/v1/inboxes/{id}/faults";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: Record<string, never>;
    body: {
      /** The rules, in order (the first that replies or disconnects decides); at most 100 per scope; [] clears */
      rules: {
        /** Your name for the rule (shown in events) */
        name?: string;
        /** SMTP stage; default rcpt for rate-limit, greylist and mailbox-full, data for throttle; required otherwise */
        stage?: "connect" | "ehlo" | "auth" | "mail" | "rcpt" | "data" | "end-of-data";
        /** All given fields must match; none = every session or recipient the scope covers */
        match?: {
          /** Recipient address glob (stages rcpt, data, end-of-data) */
          recipient?: string;
          /** Envelope sender (MAIL FROM) glob (stages mail and later) */
          sender?: string;
          /** Glob on the label of the recipient's inbox (stages rcpt, data, end-of-data) */
          label?: string;
        };
        /** What happens when the rule fires */
        action: {
          type: "reply";
          /** SMTP reply code */
          code: number;
          /** Enhanced status code (RFC 3463), e.g. 4.2.2; its class must match the reply code */
          enhanced?: string;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          /** Close the connection without a reply */
          type: "disconnect";
        } | {
          type: "delay";
          /** Hold the reply this long */
          ms: number;
        } | {
          type: "throttle";
          /** Read DATA at most this fast (stage data) */
          bytesPerSecond: number;
        } | {
          type: "rate-limit";
          /** One token bucket per client address, or per recipient */
          per?: "client" | "recipient";
          /** Messages let through per window */
          limit: number;
          /** The window; the bucket refills continuously */
          windowSeconds: number;
          code?: 421 | 450 | 451 | 452;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          type: "greylist";
          /** A retry of the same sender/recipient/client triple is accepted this long after the first try */
          retryAfterSeconds?: number;
        } | {
          type: "mailbox-full";
          /** false: 452 4.2.2 (temporary) · true: 552 5.2.2 */
          permanent?: boolean;
        };
        /** When a matching rule fires (default always); counted per rule from its creation */
        mode?: {
          type: "always";
        } | {
          type: "first";
          /** Fire on the first n matches only */
          n: number;
        } | {
          type: "every";
          /** Fire on match n, 2n, 3n, … */
          n: number;
        } | {
          type: "probability";
          /** Chance of firing, 0-1 */
          p: number;
          /** The same seed gives the same sequence of fired/not fired */
          seed: number;
        };
      }[];
    };
    bodyRequired: true;
    response: {
      rules: {
        /** flt_…; a new id (and fresh counters) each time the scope is set */
        ruleId: string;
        scope: {
          kind: "global";
        } | {
          kind: "prefix";
          labelPrefix: string;
        } | {
          kind: "inbox";
          inboxId: string;
          address: string | null;
        };
        name: string | null;
        stage: "connect" | "ehlo" | "auth" | "mail" | "rcpt" | "data" | "end-of-data";
        /** All given fields must match; none = every session or recipient the scope covers */
        match: {
          /** Recipient address glob (stages rcpt, data, end-of-data) */
          recipient?: string;
          /** Envelope sender (MAIL FROM) glob (stages mail and later) */
          sender?: string;
          /** Glob on the label of the recipient's inbox (stages rcpt, data, end-of-data) */
          label?: string;
        };
        /** What happens when the rule fires */
        action: {
          type: "reply";
          /** SMTP reply code */
          code: number;
          /** Enhanced status code (RFC 3463), e.g. 4.2.2; its class must match the reply code */
          enhanced?: string;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          /** Close the connection without a reply */
          type: "disconnect";
        } | {
          type: "delay";
          /** Hold the reply this long */
          ms: number;
        } | {
          type: "throttle";
          /** Read DATA at most this fast (stage data) */
          bytesPerSecond: number;
        } | {
          type: "rate-limit";
          /** One token bucket per client address, or per recipient */
          per: "client" | "recipient";
          /** Messages let through per window */
          limit: number;
          /** The window; the bucket refills continuously */
          windowSeconds: number;
          code: 421 | 450 | 451 | 452;
          /** Reply text after the code (printable, at most 200 characters) */
          text?: string;
        } | {
          type: "greylist";
          /** A retry of the same sender/recipient/client triple is accepted this long after the first try */
          retryAfterSeconds: number;
        } | {
          type: "mailbox-full";
          /** false: 452 4.2.2 (temporary) · true: 552 5.2.2 */
          permanent: boolean;
        };
        /** When a matching rule fires (default always); counted per rule from its creation */
        mode: {
          type: "always";
        } | {
          type: "first";
          /** Fire on the first n matches only */
          n: number;
        } | {
          type: "every";
          /** Fire on match n, 2n, 3n, … */
          n: number;
        } | {
          type: "probability";
          /** Chance of firing, 0-1 */
          p: number;
          /** The same seed gives the same sequence of fired/not fired */
          seed: number;
        };
        /** Times it fired on this instance since it was set */
        fired: number;
        createdAt: string;
      }[];
    };
  };
  /** Delete an inbox's fault rules — `DELETE /v1/inboxes/{id}/faults` */
  "inboxes.faults.clear": {
    method: "DELETE";
    path: "/v1/inboxes/{id}/faults";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    bodyRequired: false;
    response: {
      deleted: number;
    };
  };
  /** An inbox's timeline: faults that fired and mail that arrived — `GET /v1/inboxes/{id}/timeline` */
  "inboxes.timeline": {
    method: "GET";
    path: "/v1/inboxes/{id}/timeline";
    status: 200;
    pathParams: {
      /** Inbox id (inb_…) */
      id: string;
    };
    query: {
      /** Only events at or after this ISO 8601 time */
      since?: string;
      /** At most this many (1-500, default 100) */
      limit?: number;
    };
    body: undefined;
    bodyRequired: false;
    response: {
      items: {
        type: "fault" | "message";
        at: string;
        /** type fault: the fault that fired */
        fault?: {
          eventId: string;
          inboxId: string | null;
          /** null for a local-part shortcut */
          ruleId: string | null;
          source: "rule" | "shortcut";
          stage: string;
          action: string;
          /** The reply code sent (null for delay, throttle, disconnect) */
          code: number | null;
          reply: string | null;
          sender: string | null;
          recipient: string | null;
          /** The SMTP client address */
          client: string | null;
          at: string;
        };
        /** type message: a message that arrived */
        message?: {
          messageId: string;
          subject: string | null;
          from: string | null;
          recipient: string | null;
        };
      }[];
      truncated: boolean;
    };
  };
}

export type OperationId = keyof Operations;

/** Method, path template and success status of every operation (what the client needs at run time). */
export const OPERATIONS: { readonly [K in OperationId]: { readonly method: Operations[K]['method']; readonly path: Operations[K]['path']; readonly status: Operations[K]['status'] } } = {
  "system.health": { method: "GET", path: "/health", status: 200 },
  "system.discovery": { method: "GET", path: "/v1", status: 200 },
  "system.openapi": { method: "GET", path: "/v1/openapi.json", status: 200 },
  "system.cluster": { method: "GET", path: "/v1/cluster", status: 200 },
  "inboxes.list": { method: "GET", path: "/v1/inboxes", status: 200 },
  "inboxes.create": { method: "POST", path: "/v1/inboxes", status: 201 },
  "inboxes.cleanup": { method: "DELETE", path: "/v1/inboxes", status: 200 },
  "inboxes.get": { method: "GET", path: "/v1/inboxes/{id}", status: 200 },
  "inboxes.delete": { method: "DELETE", path: "/v1/inboxes/{id}", status: 200 },
  "inboxes.wait": { method: "GET", path: "/v1/inboxes/{id}/wait", status: 200 },
  "messages.list": { method: "GET", path: "/v1/inboxes/{id}/messages", status: 200 },
  "messages.clear": { method: "DELETE", path: "/v1/inboxes/{id}/messages", status: 200 },
  "messages.get": { method: "GET", path: "/v1/inboxes/{id}/messages/{messageId}", status: 200 },
  "messages.delete": { method: "DELETE", path: "/v1/inboxes/{id}/messages/{messageId}", status: 200 },
  "messages.mark": { method: "PATCH", path: "/v1/inboxes/{id}/messages/{messageId}", status: 200 },
  "messages.raw": { method: "GET", path: "/v1/inboxes/{id}/messages/{messageId}/raw", status: 200 },
  "messages.attachments": { method: "GET", path: "/v1/inboxes/{id}/messages/{messageId}/attachments", status: 200 },
  "messages.attachment": { method: "GET", path: "/v1/inboxes/{id}/messages/{messageId}/attachments/{attachmentId}", status: 200 },
  "checks.list": { method: "GET", path: "/v1/checks", status: 200 },
  "checks.supplied": { method: "POST", path: "/v1/checks", status: 200 },
  "checks.explain": { method: "GET", path: "/v1/checks/{check}/rules/{rule}", status: 200 },
  "checks.last": { method: "GET", path: "/v1/inboxes/{id}/messages/{messageId}/checks", status: 200 },
  "checks.run": { method: "POST", path: "/v1/inboxes/{id}/messages/{messageId}/checks", status: 200 },
  "messages.render": { method: "GET", path: "/v1/inboxes/{id}/messages/{messageId}/render", status: 200 },
  "messages.render_compare": { method: "GET", path: "/v1/inboxes/{id}/messages/{messageId}/render/compare", status: 200 },
  "messages.send": { method: "POST", path: "/v1/inboxes/{id}/send", status: 202 },
  "messages.reply": { method: "POST", path: "/v1/inboxes/{id}/reply", status: 202 },
  "messages.release": { method: "POST", path: "/v1/inboxes/{id}/messages/{messageId}/release", status: 202 },
  "labels.list_rules": { method: "GET", path: "/v1/label-rules", status: 200 },
  "labels.create_rule": { method: "POST", path: "/v1/label-rules", status: 201 },
  "labels.delete_rule": { method: "DELETE", path: "/v1/label-rules/{id}", status: 200 },
  "labels.update_rule": { method: "PATCH", path: "/v1/label-rules/{id}", status: 200 },
  "threads.list": { method: "GET", path: "/v1/inboxes/{id}/threads", status: 200 },
  "threads.get": { method: "GET", path: "/v1/inboxes/{id}/threads/{threadId}", status: 200 },
  "console.threads": { method: "GET", path: "/v1/console/threads", status: 200 },
  "messages.search": { method: "GET", path: "/v1/inboxes/{id}/search", status: 200 },
  "messages.search_all": { method: "GET", path: "/v1/search", status: 200 },
  "agent.hub": { method: "GET", path: "/v1/agent", status: 200 },
  "agent.verify": { method: "POST", path: "/v1/agent/verify", status: 200 },
  "agent.recipes": { method: "GET", path: "/v1/agent/recipes", status: 200 },
  "agent.recipe": { method: "GET", path: "/v1/agent/recipes/{service}", status: 200 },
  "agent.autotest": { method: "GET", path: "/v1/agent/autotest", status: 200 },
  "inboxes.open": { method: "POST", path: "/v1/inboxes/open", status: 200 },
  "inboxes.extract": { method: "GET", path: "/v1/inboxes/{id}/extract", status: 200 },
  "inboxes.simulate": { method: "POST", path: "/v1/inboxes/{id}/simulate", status: 201 },
  "rehearsal.page": { method: "GET", path: "/v1/agent/test", status: 200 },
  "rehearsal.signup": { method: "POST", path: "/v1/agent/test/signup", status: 200 },
  "rehearsal.confirm": { method: "POST", path: "/v1/agent/test/confirm", status: 200 },
  "rehearsal.magic": { method: "GET", path: "/v1/agent/test/magic", status: 200 },
  "runs.list": { method: "GET", path: "/v1/agent/runs", status: 200 },
  "runs.start": { method: "POST", path: "/v1/agent/runs", status: 201 },
  "runs.get": { method: "GET", path: "/v1/agent/runs/{id}", status: 200 },
  "runs.patch": { method: "PATCH", path: "/v1/agent/runs/{id}", status: 200 },
  "runs.next": { method: "POST", path: "/v1/agent/runs/{id}/next", status: 200 },
  "runs.report": { method: "POST", path: "/v1/agent/runs/{id}/report", status: 200 },
  "runs.plan": { method: "GET", path: "/v1/agent/runs/{id}/plan", status: 200 },
  "runs.timeline": { method: "GET", path: "/v1/agent/runs/{id}/timeline", status: 200 },
  "inboxes.events": { method: "GET", path: "/v1/inboxes/{id}/events", status: 200 },
  "inboxes.callbacks": { method: "GET", path: "/v1/inboxes/{id}/callbacks", status: 200 },
  "webhooks.inbound": { method: "POST", path: "/webhooks/{provider}", status: 200 },
  "inboxes.extract_presets": { method: "GET", path: "/v1/inboxes/{id}/extract/presets", status: 200 },
  "messages.extract_structured": { method: "POST", path: "/v1/inboxes/{id}/messages/{messageId}/extract", status: 200 },
  "workspace.models": { method: "GET", path: "/v1/workspace/models", status: 200 },
  "workspace.models_probe": { method: "POST", path: "/v1/workspace/models/probe", status: 200 },
  "workspace.hub": { method: "GET", path: "/v1/workspace", status: 200 },
  "workspace.summarize": { method: "POST", path: "/v1/workspace/summarize", status: 200 },
  "workspace.draft_reply": { method: "POST", path: "/v1/workspace/draft-reply", status: 200 },
  "workspace.get_policy": { method: "GET", path: "/v1/workspace/policy", status: 200 },
  "workspace.set_policy": { method: "PUT", path: "/v1/workspace/policy", status: 200 },
  "workspace.rules_status": { method: "GET", path: "/v1/workspace/rules", status: 200 },
  "workspace.rules_evaluate": { method: "POST", path: "/v1/workspace/rules/evaluate", status: 200 },
  "workspace.suggest_reminders": { method: "POST", path: "/v1/workspace/reminders/suggest", status: 200 },
  "workspace.list_reminders": { method: "GET", path: "/v1/workspace/reminders", status: 200 },
  "workspace.create_reminder": { method: "POST", path: "/v1/workspace/reminders", status: 201 },
  "workspace.complete_reminder": { method: "PATCH", path: "/v1/workspace/reminders/{id}/complete", status: 200 },
  "workspace.list_actions": { method: "GET", path: "/v1/workspace/actions", status: 200 },
  "workspace.log_action": { method: "POST", path: "/v1/workspace/actions", status: 201 },
  "workspace.execute_reply": { method: "POST", path: "/v1/workspace/execute-reply", status: 200 },
  "workspace.execute_gmail_draft": { method: "POST", path: "/v1/workspace/execute-gmail-draft", status: 200 },
  "workspace.execute_calendar_event": { method: "POST", path: "/v1/workspace/execute-calendar-event", status: 200 },
  "workspace.today": { method: "GET", path: "/v1/workspace/today", status: 200 },
  "workspace.today_decision": { method: "POST", path: "/v1/workspace/today/{id}/decision", status: 200 },
  "workspace.draft_review": { method: "GET", path: "/v1/workspace/drafts/{id}", status: 200 },
  "workspace.list_monitors": { method: "GET", path: "/v1/workspace/monitors", status: 200 },
  "workspace.create_monitor": { method: "POST", path: "/v1/workspace/monitors", status: 201 },
  "workspace.delete_monitor": { method: "DELETE", path: "/v1/workspace/monitors/{id}", status: 200 },
  "workspace.run_monitor": { method: "POST", path: "/v1/workspace/monitors/{id}/run", status: 200 },
  "workspace.list_monitor_runs": { method: "GET", path: "/v1/workspace/monitors/{id}/runs", status: 200 },
  "team.get": { method: "GET", path: "/v1/team", status: 200 },
  "team.keys.create": { method: "POST", path: "/v1/team/keys", status: 201 },
  "team.keys.revoke": { method: "DELETE", path: "/v1/team/keys/{id}", status: 200 },
  "oauth.token": { method: "POST", path: "/v1/oauth/token", status: 200 },
  "oauth.register": { method: "POST", path: "/v1/oauth/register", status: 201 },
  "oauth.clients.get": { method: "GET", path: "/v1/oauth/clients/{id}", status: 200 },
  "oauth.authorize": { method: "GET", path: "/v1/oauth/authorize", status: 200 },
  "oauth.metadata": { method: "GET", path: "/.well-known/oauth-authorization-server", status: 200 },
  "oauth.resource_metadata": { method: "GET", path: "/.well-known/oauth-protected-resource/mcp", status: 200 },
  "mcp.auth": { method: "GET", path: "/mcp/auth", status: 200 },
  "account.me": { method: "GET", path: "/v1/me", status: 200 },
  "account.stats": { method: "GET", path: "/v1/stats", status: 200 },
  "account.audit": { method: "GET", path: "/v1/audit", status: 200 },
  "billing.checkout": { method: "POST", path: "/v1/billing/checkout", status: 200 },
  "billing.portal": { method: "POST", path: "/v1/billing/portal", status: 200 },
  "domains.list": { method: "GET", path: "/v1/domains", status: 200 },
  "domains.create": { method: "POST", path: "/v1/domains", status: 201 },
  "domains.get": { method: "GET", path: "/v1/domains/{id}", status: 200 },
  "domains.delete": { method: "DELETE", path: "/v1/domains/{id}", status: 200 },
  "domains.verify": { method: "POST", path: "/v1/domains/{id}/verify", status: 200 },
  "console.summary": { method: "GET", path: "/v1/console/summary", status: 200 },
  "console.inbox": { method: "GET", path: "/v1/console/inboxes/{id}", status: 200 },
  "mailbox.status": { method: "GET", path: "/v1/providers/mailbox", status: 200 },
  "mailbox.list_accounts": { method: "GET", path: "/v1/providers/mailbox/accounts", status: 200 },
  "mailbox.connect": { method: "POST", path: "/v1/providers/mailbox/accounts", status: 201 },
  "mailbox.disconnect": { method: "DELETE", path: "/v1/providers/mailbox/accounts/{accountId}", status: 200 },
  "mailbox.list_threads": { method: "GET", path: "/v1/providers/mailbox/threads", status: 200 },
  "mailbox.read_thread": { method: "GET", path: "/v1/providers/mailbox/threads/{threadId}", status: 200 },
  "mailbox.triage": { method: "GET", path: "/v1/providers/mailbox/triage", status: 200 },
  "mailbox.digest": { method: "GET", path: "/v1/providers/mailbox/digest", status: 200 },
  "mailbox.get_settings": { method: "GET", path: "/v1/providers/mailbox/settings", status: 200 },
  "mailbox.set_settings": { method: "PUT", path: "/v1/providers/mailbox/settings", status: 200 },
  "calendar.status": { method: "GET", path: "/v1/providers/calendar", status: 200 },
  "calendar.list_accounts": { method: "GET", path: "/v1/providers/calendar/accounts", status: 200 },
  "calendar.connect": { method: "POST", path: "/v1/providers/calendar/accounts", status: 201 },
  "calendar.disconnect": { method: "DELETE", path: "/v1/providers/calendar/accounts/{id}", status: 200 },
  "calendar.list_events": { method: "GET", path: "/v1/providers/calendar/events", status: 200 },
  "calendar.availability": { method: "GET", path: "/v1/providers/calendar/availability", status: 200 },
  "calendar.check_conflicts": { method: "GET", path: "/v1/providers/calendar/conflicts", status: 200 },
  "calendar.suggest_meeting": { method: "GET", path: "/v1/providers/calendar/suggest", status: 200 },
  "calendar.agenda": { method: "GET", path: "/v1/providers/calendar/agenda", status: 200 },
  "faults.list": { method: "GET", path: "/v1/faults", status: 200 },
  "faults.set": { method: "PUT", path: "/v1/faults", status: 200 },
  "faults.clear": { method: "DELETE", path: "/v1/faults", status: 200 },
  "faults.events": { method: "GET", path: "/v1/faults/events", status: 200 },
  "inboxes.faults.list": { method: "GET", path: "/v1/inboxes/{id}/faults", status: 200 },
  "inboxes.faults.set": { method: "PUT", path: "/v1/inboxes/{id}/faults", status: 200 },
  "inboxes.faults.clear": { method: "DELETE", path: "/v1/inboxes/{id}/faults", status: 200 },
  "inboxes.timeline": { method: "GET", path: "/v1/inboxes/{id}/timeline", status: 200 },
};
