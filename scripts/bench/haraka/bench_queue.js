// Haraka queue plugin for the inboxd benchmark: each accepted message is written to its own file in queue/ and
// fsynced before Haraka answers 250, the same promise inboxd makes (a 250 means the message is on disk).
// One fsync per message, of the new file: on ext4 and XFS that also commits the new directory entry.

const fs = require('node:fs');
const path = require('node:path');

exports.register = function () {
  this.dir = path.join(process.env.HARAKA, 'queue-bench');
  fs.mkdirSync(this.dir, { recursive: true });
};

exports.hook_queue = function (next, connection) {
  const txn = connection.transaction;
  const file = path.join(this.dir, `${txn.uuid}.eml`);
  txn.message_stream.get_data((data) => {
    fs.open(file, 'wx', (err, fd) => {
      if (err) return next(DENYSOFT, `cannot create the queue file: ${err.code}`);
      fs.writeFile(fd, data, (werr) => {
        if (werr) return fs.close(fd, () => next(DENYSOFT, `cannot write the queue file: ${werr.code}`));
        fs.fsync(fd, (serr) => {
          fs.close(fd, (cerr) => {
            const e = serr ?? cerr;
            if (e) return next(DENYSOFT, `cannot sync the queue file: ${e.code}`);
            next(OK);
          });
        });
      });
    });
  });
};
