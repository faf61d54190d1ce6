//! The handler trait: what the dispatcher runs for an action.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::event::Action;

/// What a handler gives back: an output (any JSON) or an error message.
pub type HandlerResult = Result<Value, String>;

/// Something that carries out actions of one or more names.
///
/// The trait is object-safe: [`Handler::call`] returns a boxed future, so
/// handlers of different types sit side by side in one
/// [`Dispatcher`](super::Dispatcher). The future is `'static` and `Send`
/// because it runs on a Tokio task of its own; clone what you need out of
/// `self` before the `async move` block. A handler must not block its thread
/// for long (use [`tokio::task::spawn_blocking`] for blocking work): the
/// dispatcher's timeout can only stop a handler at an `.await`.
///
/// For a closure, [`handler_fn`] is shorter than implementing the trait.
///
/// ```
/// use actionstream::dispatch::{Handler, HandlerResult};
/// use actionstream::Action;
/// use futures::future::BoxFuture;
///
/// struct Echo;
///
/// impl Handler for Echo {
///     fn call(&self, action: Action) -> BoxFuture<'static, HandlerResult> {
///         Box::pin(async move { Ok(action.arguments) })
///     }
/// }
/// ```
pub trait Handler: Send + Sync + 'static {
    /// Runs the action. An `Err` becomes a result with `ok: false`.
    fn call(&self, action: Action) -> BoxFuture<'static, HandlerResult>;
}

impl<H: Handler + ?Sized> Handler for Arc<H> {
    fn call(&self, action: Action) -> BoxFuture<'static, HandlerResult> {
        (**self).call(action)
    }
}

impl<H: Handler + ?Sized> Handler for Box<H> {
    fn call(&self, action: Action) -> BoxFuture<'static, HandlerResult> {
        (**self).call(action)
    }
}

/// A [`Handler`] made from an async closure; see [`handler_fn`].
#[derive(Debug, Clone)]
pub struct FnHandler<F>(F);

/// Makes a [`Handler`] of a closure that takes the action and returns a
/// future of a [`HandlerResult`].
///
/// ```
/// use actionstream::dispatch::handler_fn;
/// use serde_json::json;
///
/// let h = handler_fn(|action: actionstream::Action| async move {
///     Ok(json!({"seen": action.name}))
/// });
/// # let _ = h;
/// ```
pub fn handler_fn<F, Fut>(f: F) -> FnHandler<F>
where
    F: Fn(Action) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HandlerResult> + Send + 'static,
{
    FnHandler(f)
}

impl<F, Fut> Handler for FnHandler<F>
where
    F: Fn(Action) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HandlerResult> + Send + 'static,
{
    fn call(&self, action: Action) -> BoxFuture<'static, HandlerResult> {
        Box::pin((self.0)(action))
    }
}
