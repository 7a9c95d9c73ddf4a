/**
 * Directory trees as one byte stream: {@link io.rdmaflux.connector.tree.TreeSource} walks a tree
 * and sends entries and contents in the tree format ({@code docs/tree-format.md}),
 * {@link io.rdmaflux.connector.tree.TreeSink} recreates it, trusting no path, and
 * {@link io.rdmaflux.connector.tree.TreeListing} lists a destination for a sync. The stream
 * passes through codec stages and the channel like any other.
 */
package io.rdmaflux.connector.tree;
