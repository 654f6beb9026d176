//! A TLS web site on 127.0.0.1 for the install's end-to-end tests: a site the test resolver calls
//! public (`public.test` → 93.184.216.34) must be https, so it needs a certificate the install
//! trusts. Nothing leaves the machine: the test resolver connects every checked address to this
//! server ([`crate::resolver::StaticResolver::connecting_to`]).
//!
//! The certificates were made once with openssl 3.0 (`openssl ca`, P-256, valid 2020–2120): a test
//! authority and, signed by it, a leaf for public.test, cdn.test, intranet.test and mixed.test.

use parking_lot::Mutex;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The test authority: trusted by the install in these tests only.
pub const AUTHORITY: &str = "\
-----BEGIN CERTIFICATE-----
MIIBczCCARigAwIBAgICEAAwCgYIKoZIzj0EAwIwHzEdMBsGA1UEAwwUQ293b3Jr
IHNpdGVzIHRlc3QgQ0EwIBcNMjAwMTAxMDAwMDAwWhgPMjEyMDAxMDEwMDAwMDBa
MB8xHTAbBgNVBAMMFENvd29yayBzaXRlcyB0ZXN0IENBMFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAElr0CJdGJ9SMI/hd+DGwixLqtWYFfCZ2AQBkc4+osJ2sGfPYv
inZNRjmDukncrKAc5Ap47c/l4zVXgbcd41N+OaNCMEAwDwYDVR0TAQH/BAUwAwEB
/zAOBgNVHQ8BAf8EBAMCAQYwHQYDVR0OBBYEFFenZroRCsg/sEbjB9h/gB7+a1Qz
MAoGCCqGSM49BAMCA0kAMEYCIQDae9mV7SlGOvdcMbRgsAQMWWf6QRT9OEV24r6L
TjCmuQIhAL/qeaZIMXBgbuNFbx/lBmwj7+3NCup1uomJGCFAk6qD
-----END CERTIFICATE-----
";

const LEAF: &str = "\
-----BEGIN CERTIFICATE-----
MIIB2jCCAYGgAwIBAgICEAEwCgYIKoZIzj0EAwIwHzEdMBsGA1UEAwwUQ293b3Jr
IHNpdGVzIHRlc3QgQ0EwIBcNMjAwMTAxMDAwMDAwWhgPMjEyMDAxMDEwMDAwMDBa
MBYxFDASBgNVBAMMC3B1YmxpYy50ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcD
QgAE6pJrCOeXJtgXnK0dFBrJ0rlBfLMkj27vXYB/JiCsODQW8WOraL7uGDnuILj7
DTV22bxRykhCpvU2CzB4+VwPW6OBszCBsDAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB
/wQEAwIHgDATBgNVHSUEDDAKBggrBgEFBQcDATA7BgNVHREENDAyggtwdWJsaWMu
dGVzdIIIY2RuLnRlc3SCDWludHJhbmV0LnRlc3SCCm1peGVkLnRlc3QwHQYDVR0O
BBYEFG0tfF6UPvqpCvpqr/8zcZ90BmAdMB8GA1UdIwQYMBaAFFenZroRCsg/sEbj
B9h/gB7+a1QzMAoGCCqGSM49BAMCA0cAMEQCIG4KufEx7dyweXk9IU9VMpbGEaIB
8EzPotmIpQoS3JnWAiBtCqEU5bCaLMRUMW+4vpSBJtEAOjEoKPE66/FmR7q5Nw==
-----END CERTIFICATE-----
";

const LEAF_KEY: &str = "\
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg7VovbXuxhuLdL+yj
bA/snHNz9tG7uXMrKDPjMBCdfKOhRANCAATqkmsI55cm2BecrR0UGsnSuUF8sySP
bu9dgH8mIKw4NBbxY6tovu4YOe4guPsNNXbZvFHKSEKm9TYLMHj5XA9b
-----END PRIVATE KEY-----
";

/// What the site answers for `host/path`.
#[derive(Clone)]
pub enum Answer {
    /// 200 with this type and body.
    Page(&'static str, Vec<u8>),
    /// 302 to this address.
    Redirect(String),
}

/// A TLS site on 127.0.0.1 answering from a table keyed by `host/path` (the `Host` header without
/// its port); it records every `host/path` asked for.
pub struct TlsSite {
    pub port: u16,
    routes: Arc<Mutex<Vec<(String, Answer)>>>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl TlsSite {
    /// Starts the site with no pages: add them with [`TlsSite::answer`] (they name its port).
    pub async fn start() -> TlsSite {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let leaf = CertificateDer::from_pem_slice(LEAF.as_bytes()).expect("the test leaf is PEM");
        let key = PrivateKeyDer::from_pem_slice(LEAF_KEY.as_bytes()).expect("the test key is PEM");
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![leaf], key)
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let routes: Arc<Mutex<Vec<(String, Answer)>>> = Arc::default();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let (table, log) = (routes.clone(), asked.clone());
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, routes, log) = (acceptor.clone(), table.clone(), log.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else { return };
                    let mut stream = BufReader::new(tls);
                    let (mut request, mut host, mut line) =
                        (String::new(), String::new(), String::new());
                    if stream.read_line(&mut request).await.is_err() {
                        return;
                    }
                    while stream.read_line(&mut line).await.is_ok_and(|n| n > 2) {
                        if let Some(value) = line.to_ascii_lowercase().strip_prefix("host:") {
                            host = value.trim().split(':').next().unwrap_or_default().to_owned();
                        }
                        line.clear();
                    }
                    let key = format!("{host}{}", request.split_whitespace().nth(1).unwrap_or("/"));
                    log.lock().push(key.clone());
                    let answer =
                        routes.lock().iter().find(|(k, _)| *k == key).map(|(_, a)| a.clone());
                    let (head, body) = match answer {
                        Some(Answer::Page(mime, body)) => {
                            (format!("200 OK\r\nContent-Type: {mime}"), body)
                        }
                        Some(Answer::Redirect(to)) => {
                            (format!("302 Found\r\nLocation: {to}"), Vec::new())
                        }
                        None => ("404 Not Found".to_owned(), Vec::new()),
                    };
                    let mut tls = stream.into_inner();
                    let head = format!(
                        "HTTP/1.1 {head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = tls.write_all(head.as_bytes()).await;
                    let _ = tls.write_all(&body).await;
                    let _ = tls.shutdown().await;
                });
            }
        });
        TlsSite { port, routes, asked }
    }

    /// Serves `answer` at `host/path`.
    pub fn answer(&self, key: &str, answer: Answer) {
        self.routes.lock().push((key.to_owned(), answer));
    }

    /// `https://<host>:<port><path>`.
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("https://{host}:{}{path}", self.port)
    }

    /// Every `host/path` asked for so far.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().clone()
    }
}
