import net, { type AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

/** How the sink answers a recipient: accept it, or refuse it with an SMTP code and text. */
export type RcptAnswer = 'accept' | { code: number; message: string };

/**
 * A real SMTP server (the `smtp-server` package) on 127.0.0.1 that requires a login, parses every mail it accepts
 * with mailparser, and can refuse recipients on demand.
 */
export class SmtpSink {
  readonly mails: { envelope: { from: string; to: string[] }; user: string | undefined; mail: ParsedMail }[] = [];
  rcpt: RcptAnswer = 'accept';
  /** Connections accepted so far, and those still open (a pooled client keeps them). */
  connections = 0;
  open = 0;

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(credentials: { username: string; password: string }): Promise<SmtpSink> {
    let sink: SmtpSink | undefined;
    const server = new SMTPServer({
      logger: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      onConnect(_session, callback) {
        sink!.connections++;
        sink!.open++;
        callback();
      },
      onClose() {
        sink!.open--;
      },
      onAuth(auth, _session, callback) {
        if (auth.username === credentials.username && auth.password === credentials.password)
          return callback(null, { user: auth.username });
        // Echoes what it got, as a careless server might: the provider must keep it out of its outcome.
        return callback(Object.assign(new Error(`Invalid login for password ${auth.password}`), { responseCode: 535 }));
      },
      onRcptTo(_address: SMTPServerAddress, _session, callback) {
        const answer = sink!.rcpt;
        if (answer === 'accept') return callback();
        return callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
      },
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((mail) => {
            sink!.mails.push({
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              },
              user: session.user as string | undefined,
              mail,
            });
            callback(null, 'Queued as 4F1B2C');
          })
          .catch(callback);
      },
    });
    // A client that hangs up before the server's last reply (a connection check's QUIT) is not an error of the sink's.
    server.on('error', () => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.server.address() as AddressInfo).port;
    sink = new SmtpSink(server, port);
    return sink;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A TCP server that accepts connections and then says nothing (no SMTP greeting), or drops them at once. */
export async function silentServer(behaviour: 'silent' | 'drop') {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    if (behaviour === 'drop') return socket.destroy();
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
