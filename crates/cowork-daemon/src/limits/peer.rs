//! Who is at the other end of a connection, as the connection cap counts peers. Every client of
//! the daemon's own listener is on loopback (the CLI, the workbench, the desktop shell, a routine,
//! a tunnel), and a client picks its source address freely in 127.0.0.0/8, so an address says
//! nothing there: a loopback peer is the user owning the client's socket, which the kernel knows
//! (`sock_diag`, as `ss -e` asks). A peer elsewhere (the agents' door on another interface) is its
//! address — a whole /64 for IPv6, which one host holds.

use std::net::{IpAddr, SocketAddr};

/// One party the connection cap counts connections of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Peer {
    /// A loopback client's socket, owned by this user id.
    User(u32),
    /// A client elsewhere, or one whose owner could not be learnt: its address (an IPv6 address
    /// cut to its /64).
    Address(IpAddr),
}

impl Peer {
    /// The peer of a connection accepted on `local` from `remote`.
    pub(crate) fn of(remote: SocketAddr, local: SocketAddr) -> Peer {
        let (remote, local) = (unmapped(remote), unmapped(local));
        if remote.ip().is_loopback() {
            if let Some(uid) = socket_owner(remote, local) {
                return Peer::User(uid);
            }
        }
        match remote.ip() {
            IpAddr::V6(ip) if !ip.is_loopback() => {
                let prefix = u128::from(ip) & !((1u128 << 64) - 1);
                Peer::Address(IpAddr::V6(prefix.into()))
            }
            ip => Peer::Address(ip),
        }
    }
}

/// `address`, an IPv4 client of an IPv6 listener (`::ffff:127.0.0.1`) as the IPv4 address its
/// socket has.
fn unmapped(address: SocketAddr) -> SocketAddr {
    match address.ip() {
        IpAddr::V6(ip) => match ip.to_ipv4_mapped() {
            Some(v4) => SocketAddr::new(IpAddr::V4(v4), address.port()),
            None => address,
        },
        IpAddr::V4(_) => address,
    }
}

/// The user owning the TCP socket bound to `socket` and connected to `remote` (on this machine):
/// one exact `SOCK_DIAG_BY_FAMILY` lookup over netlink, which any user may make. `None` when the
/// kernel does not answer it (no such socket any more, netlink refused).
#[cfg(target_os = "linux")]
fn socket_owner(socket: SocketAddr, remote: SocketAddr) -> Option<u32> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    const SOCK_DIAG_BY_FAMILY: u16 = 20;
    const NLM_F_REQUEST: u16 = 1;
    // nlmsghdr (16 bytes), then inet_diag_req_v2 (56): family, protocol, ext, pad, states, then
    // inet_diag_sockid: sport, dport (big-endian), src, dst (16 bytes each), interface, cookie.
    let mut request = [0u8; 72];
    request[0..4].copy_from_slice(&72u32.to_ne_bytes());
    request[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    request[6..8].copy_from_slice(&NLM_F_REQUEST.to_ne_bytes());
    request[8..12].copy_from_slice(&1u32.to_ne_bytes());
    let family = match socket.ip() {
        IpAddr::V4(_) => libc::AF_INET,
        IpAddr::V6(_) => libc::AF_INET6,
    };
    request[16] = family as u8;
    request[17] = libc::IPPROTO_TCP as u8;
    request[20..24].copy_from_slice(&u32::MAX.to_ne_bytes());
    request[24..26].copy_from_slice(&socket.port().to_be_bytes());
    request[26..28].copy_from_slice(&remote.port().to_be_bytes());
    let octets = |address: SocketAddr| match address.ip() {
        IpAddr::V4(ip) => {
            let mut all = [0u8; 16];
            all[..4].copy_from_slice(&ip.octets());
            all
        }
        IpAddr::V6(ip) => ip.octets(),
    };
    request[28..44].copy_from_slice(&octets(socket));
    request[44..60].copy_from_slice(&octets(remote));
    // INET_DIAG_NOCOOKIE: look the socket up by its addresses alone.
    request[64..72].copy_from_slice(&[0xff; 8]);

    #[allow(unsafe_code)]
    // SAFETY: socket(2) returns a new fd (or -1), which the OwnedFd then owns alone.
    let netlink = unsafe {
        let fd = libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            libc::NETLINK_SOCK_DIAG,
        );
        if fd < 0 {
            return None;
        }
        OwnedFd::from_raw_fd(fd)
    };
    let mut answer = [0u8; 512];
    #[allow(unsafe_code)]
    // SAFETY: send and recv on our own fd, from and into buffers that outlive the calls, with
    // their lengths.
    let received = unsafe {
        let sent = libc::send(netlink.as_raw_fd(), request.as_ptr().cast(), request.len(), 0);
        if sent != request.len() as isize {
            return None;
        }
        libc::recv(netlink.as_raw_fd(), answer.as_mut_ptr().cast(), answer.len(), 0)
    };
    // One inet_diag_msg: its uid sits at byte 64 of the message, after the 16-byte header.
    let received = usize::try_from(received).ok()?;
    let kind = u16::from_ne_bytes([answer[4], answer[5]]);
    if received < 84 || kind != SOCK_DIAG_BY_FAMILY {
        return None;
    }
    Some(u32::from_ne_bytes(answer[80..84].try_into().expect("four bytes")))
}

#[cfg(not(target_os = "linux"))]
fn socket_owner(_socket: SocketAddr, _remote: SocketAddr) -> Option<u32> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection to a listener of ours: the peer as the daemon would count it.
    fn accepted_peer(connect: impl FnOnce(SocketAddr)) -> Peer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let address = listener.local_addr().unwrap();
        connect(address);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            match listener.accept() {
                Ok((stream, remote)) => return Peer::of(remote, stream.local_addr().unwrap()),
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                    assert!(std::time::Instant::now() < deadline, "nobody connected");
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(error) => panic!("{error}"),
            }
        }
    }

    #[test]
    fn a_loopback_peer_is_the_user_owning_its_socket() {
        let mut client = None;
        let peer = accepted_peer(|address| {
            client = Some(std::net::TcpStream::connect(address).unwrap());
        });
        #[allow(unsafe_code)]
        // SAFETY: getuid has no memory effects.
        let uid = unsafe { libc::getuid() };
        assert_eq!(peer, Peer::User(uid));
    }

    #[test]
    fn another_users_socket_is_that_user() {
        #[allow(unsafe_code)]
        // SAFETY: getuid has no memory effects.
        let root = unsafe { libc::getuid() } == 0;
        let setpriv = std::process::Command::new("setpriv").arg("--version").output();
        if !root || setpriv.is_err() {
            eprintln!("skipped: acting as another user needs root and setpriv");
            return;
        }
        let mut child = None;
        let peer = accepted_peer(|address| {
            // Bash's /dev/tcp: a socket of nobody's (65534), held open until the test kills it.
            let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{}; sleep 30", address.port());
            child = Some(
                std::process::Command::new("setpriv")
                    .args(["--reuid=65534", "--regid=65534", "--clear-groups", "bash", "-c"])
                    .arg(connect)
                    .spawn()
                    .unwrap(),
            );
        });
        let mut child = child.unwrap();
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(peer, Peer::User(65534));
    }

    #[test]
    fn a_peer_elsewhere_is_its_address_and_an_ipv6_one_its_64() {
        let local: SocketAddr = "0.0.0.0:47914".parse().unwrap();
        assert_eq!(
            Peer::of("192.0.2.7:5000".parse().unwrap(), local),
            Peer::Address("192.0.2.7".parse().unwrap())
        );
        let local: SocketAddr = "[::]:47914".parse().unwrap();
        assert_eq!(
            Peer::of("[2001:db8:1:2:aaaa::1]:5000".parse().unwrap(), local),
            Peer::of("[2001:db8:1:2:bbbb::9]:6000".parse().unwrap(), local),
        );
        assert_eq!(
            Peer::of("[2001:db8:1:2:aaaa::1]:5000".parse().unwrap(), local),
            Peer::Address("2001:db8:1:2::".parse().unwrap())
        );
    }
}
