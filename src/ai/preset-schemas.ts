// The presets' JSON Schemas (draft 2020-12), identical to the structured corpus' schemas/*.json (a unit test
// checks). Kept as code rather than .json files so the single executable carries them without extra assets.

type Schema = Record<string, unknown>;

export const TWOFA_SCHEMA: Schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://inboxd.test/schemas/extract/2fa.json',
  title: '2fa',
  description:
    'A one-time sign-in / verification message (the `2fa` extraction preset of inboxd). null means the message does not contain the value.',
  type: 'object',
  additionalProperties: false,
  required: ['code', 'link', 'service', 'expiresInMinutes'],
  properties: {
    code: {
      type: ['string', 'null'],
      description:
        "The one-time code as it is typed: whitespace removed, a dash in a digits-only code removed, a brand prefix such as 'G-' dropped, case kept. null when the message has no code. Scored as required.",
      minLength: 1,
      maxLength: 64,
      pattern: '^\\S+$',
    },
    link: {
      type: ['string', 'null'],
      description:
        'The verification / magic sign-in link (href, HTML entities decoded, redirects not unwrapped); null if none. Scored as required only when the message has no code.',
      format: 'uri',
    },
    service: {
      type: ['string', 'null'],
      description:
        'Name of the service the code or link is for (brand as displayed); null when the message has neither a code nor a link. Optional.',
      minLength: 1,
    },
    expiresInMinutes: {
      type: ['integer', 'null'],
      minimum: 0,
      description:
        'Validity stated in the message, in minutes (10 minutes -> 10, 1 hour -> 60, 24 hours -> 1440); null if not stated. Optional.',
    },
  },
};

export const INVOICE_SCHEMA: Schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://inboxd.test/schemas/extract/invoice.json',
  title: 'invoice',
  description:
    "An invoice or credit note received by e-mail (the `invoice` extraction preset of inboxd). Amounts are numbers in the document's currency, rounded to 2 decimals; a credit note has negative amounts. null means the message does not state the value.",
  type: 'object',
  additionalProperties: false,
  required: ['invoiceNumber', 'vendor', 'issueDate', 'dueDate', 'currency', 'total', 'subtotal', 'tax', 'lineItems', 'paymentUrl'],
  properties: {
    invoiceNumber: {
      type: ['string', 'null'],
      description:
        "The document's own number (invoice or credit-note number) without its label or a leading '#'. Not a customer, account, order, PO, VAT or payment-reference number. Scored as required.",
      minLength: 1,
    },
    vendor: {
      type: ['string', 'null'],
      description: 'The business that issued the invoice (seller, supplier), as the message names it. Scored as required.',
      minLength: 1,
    },
    issueDate: {
      type: ['string', 'null'],
      description: 'Invoice date, ISO 8601 YYYY-MM-DD. Scored as required.',
      format: 'date',
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
    },
    dueDate: {
      type: ['string', 'null'],
      description:
        'Payment due date, ISO 8601 YYYY-MM-DD; null when the message states none (for example an invoice that is already paid or collected by direct debit). Scored as required.',
      format: 'date',
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
    },
    currency: {
      type: ['string', 'null'],
      description: "ISO 4217 code of the invoice's currency, upper-case (EUR, USD, JPY ...). Scored as required.",
      pattern: '^[A-Z]{3}$',
    },
    total: {
      type: ['number', 'null'],
      description: 'Grand total of this document including tax; negative for a credit note. Scored as required.',
    },
    subtotal: {
      type: ['number', 'null'],
      description: 'The amount the message labels as subtotal / net amount (as printed, never computed); null if not shown. Optional.',
    },
    tax: {
      type: ['number', 'null'],
      description: 'Total tax (VAT, GST, sales tax ...) of the document; null if not shown. Optional.',
    },
    lineItems: {
      type: ['array', 'null'],
      description: 'The invoice lines, in order; null when the message itemises nothing. Optional.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['description', 'quantity', 'unitPrice', 'amount'],
        properties: {
          description: {
            type: 'string',
            minLength: 1,
            description: 'What the line is for.',
          },
          quantity: {
            type: ['number', 'null'],
            description: 'Quantity shown; null when none is shown (counts as 1).',
          },
          unitPrice: {
            type: ['number', 'null'],
            description: 'Price per unit as shown; null when not shown.',
          },
          amount: {
            type: ['number', 'null'],
            description: 'Line total as shown.',
          },
        },
      },
    },
    paymentUrl: {
      type: ['string', 'null'],
      description: 'Link that pays this invoice (pay now, view and pay, hosted payment page); null if none. Optional.',
      format: 'uri',
    },
  },
};

export const RECEIPT_SCHEMA: Schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://inboxd.test/schemas/extract/receipt.json',
  title: 'receipt',
  description:
    "A receipt or order/payment confirmation (the `receipt` extraction preset of inboxd): orders, payments, subscriptions, rides, food delivery, travel bookings, refunds. Amounts are numbers in the receipt's currency, rounded to 2 decimals; a refund has negative amounts. null means the message does not state the value.",
  type: 'object',
  additionalProperties: false,
  required: ['merchant', 'date', 'currency', 'total', 'orderNumber', 'subtotal', 'tax', 'items', 'paymentMethod'],
  properties: {
    merchant: {
      type: ['string', 'null'],
      description: 'The business that was paid (shop, restaurant, carrier, service), as the message names it. Scored as required.',
      minLength: 1,
    },
    date: {
      type: ['string', 'null'],
      description: 'Date of the purchase, payment, trip or refund, ISO 8601 YYYY-MM-DD. Scored as required.',
      format: 'date',
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
    },
    currency: {
      type: ['string', 'null'],
      description: "ISO 4217 code of the receipt's currency, upper-case. Scored as required.",
      pattern: '^[A-Z]{3}$',
    },
    total: {
      type: ['number', 'null'],
      description:
        'Amount finally charged (or refunded, negative) for this purchase, including tax, fees, shipping and tip, after discounts. Scored as required.',
    },
    orderNumber: {
      type: ['string', 'null'],
      description:
        "Reference of this purchase: order number / booking reference, else receipt number, else invoice number, else transaction or trip ID; without label or a leading '#'. null if none. Scored as required.",
      minLength: 1,
    },
    subtotal: {
      type: ['number', 'null'],
      description:
        'The amount the message labels as subtotal / amount of the items (as printed, never computed); null if not shown. Optional.',
    },
    tax: {
      type: ['number', 'null'],
      description: 'Total tax shown (included or added); null if not shown. Optional.',
    },
    items: {
      type: ['array', 'null'],
      description: 'Products or services bought, in order; null when the message itemises nothing. Optional.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['description', 'quantity', 'amount'],
        properties: {
          description: {
            type: 'string',
            minLength: 1,
            description: 'What was bought.',
          },
          quantity: {
            type: ['number', 'null'],
            description: 'Quantity shown; null when none is shown (counts as 1).',
          },
          amount: {
            type: ['number', 'null'],
            description: 'Line total as shown.',
          },
        },
      },
    },
    paymentMethod: {
      type: ['string', 'null'],
      description:
        "How it was paid: a card as '<Brand> ending <last 4>' (e.g. 'Visa ending 4242'), otherwise the method's name ('PayPal', 'iDEAL', 'Apple Pay' ...); null if not shown. Optional.",
      minLength: 1,
    },
  },
};
