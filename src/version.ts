export const NAME = 'inboxd';
export const VERSION = '0.2.0';
