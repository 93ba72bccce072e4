public import Foundation

/// nginx from the system in front of `magpie proxy` replicas, as the README deploys it: an
/// upstream hashed on the source URL (so each source is fetched and cached by one replica)
/// and `proxy_cache`, so a repeated request never reaches a replica. Each response says
/// whether nginx's cache answered (`X-Cache-Status`).
public final class NginxImageCache: Sendable {
    /// The port on 127.0.0.1.
    public let port: Int
    private let nginx: NginxInstance

    /// Starts nginx in front of the replicas listening on `replicaPorts` (127.0.0.1).
    public init(replicaPorts: [Int]) async throws {
        // nginx's workers write the cache.
        nginx = try await NginxInstance.start(name: "magpie-nginx-cache", subfolders: [("tmp", 0o777), ("cache", 0o777)]) { base, port in
            Self.configuration(base: base, port: port, replicas: replicaPorts)
        }
        port = nginx.port
    }

    /// `http://127.0.0.1:port` followed by `path`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Stops nginx and removes its folder.
    public func stop() {
        nginx.stop()
    }

    /// The README's configuration, with this test's folders and ports.
    static func configuration(base: String, port: Int, replicas: [Int]) -> String {
        let servers = replicas.map { "        server 127.0.0.1:\($0);" }.joined(separator: "\n")
        return """
            \(NginxInstance.preamble(base: base))
            http {
                access_log off;
                \(NginxInstance.temporaryPaths(in: base))

                # The source: what follows the signature and the option segments (those with a colon).
                map $request_uri $magpie_source {
                    "~^/[^/]+/(?:[^/?]*:[^/?]*/)*(?<source>[^?]+)" $source;
                    default $request_uri;
                }
                upstream magpie {
                    hash $magpie_source consistent;
            \(servers)
                    keepalive 32;
                }
                proxy_cache_path \(base)/cache levels=1:2 keys_zone=magpie_images:10m max_size=1g inactive=7d use_temp_path=off;

                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://magpie;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_cache magpie_images;
                        proxy_cache_lock on;
                        proxy_cache_use_stale error timeout updating http_502 http_503 http_504;
                        proxy_cache_revalidate on;
                        add_header X-Cache-Status $upstream_cache_status always;
                    }
                    location = /health {
                        proxy_pass http://magpie;
                        proxy_cache off;
                    }
                }
            }
            """
    }
}
