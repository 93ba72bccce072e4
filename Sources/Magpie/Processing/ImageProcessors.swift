/// Magpie's built-in processors. Each is also available with leading-dot syntax:
///
/// ```swift
/// var request = ImageRequest(url: avatarURL)
/// request.processors = [.resize(width: 256, height: 256, fit: .fill), .roundedCorners(radius: 16)]
/// ```
public enum ImageProcessors {}
