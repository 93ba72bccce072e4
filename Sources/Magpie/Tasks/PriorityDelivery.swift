/// Hands a priority kept under a lock to whoever follows it, outside that lock.
///
/// `read` returns the current priority and its follower (under the lock). Deliveries from two
/// threads can cross, so a stale value could arrive after a newer one; each delivery therefore
/// reads again afterwards and sends once more if the value moved on. Whatever order crossing
/// deliveries take, the last one to arrive carries the current priority. Followers must accept
/// the same value twice.
func deliverPriority(
    _ read: () -> (priority: ImageRequest.Priority, follower: @Sendable (ImageRequest.Priority) -> Void)?
) {
    var sent: ImageRequest.Priority?
    while let (priority, follower) = read(), priority != sent {
        follower(priority)
        sent = priority
    }
}
