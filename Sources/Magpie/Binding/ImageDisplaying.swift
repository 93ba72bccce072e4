/// Anything that shows one image at a time: a view, a cell, a layer, a test double.
///
/// Adopt it with two members and bind with ``ImagePipeline/bind(_:to:options:)``:
///
/// ```swift
/// @MainActor final class AvatarView: ImageDisplaying {
///     let imageBinding = ImageBinding()
///     var shown: DecodedImage?
///     func display(_ image: DecodedImage?) { shown = image }
/// }
///
/// pipeline.bind(user.avatarURL, to: avatarView)
/// ```
@MainActor
public protocol ImageDisplaying: AnyObject {
    /// Magpie's bookkeeping for this target (its current URL and request). Store one
    /// `ImageBinding()` per target and never share it; Magpie does the rest.
    var imageBinding: ImageBinding { get }

    /// Shows `image`, or clears the target when it is `nil`. Always called on the main actor.
    func display(_ image: DecodedImage?)
}
