/// A way in to a sound module's control besides the ones `SoundModuleHost` opens itself (the
/// FluidSynth shell and OSC): the HTTP face (`ControlHTTPFace`), or one of your own. It answers from
/// the moment it is made; the host says where (`announcement`) when it starts and stops it before it stops.
public protocol SoundModuleFace: AnyObject {
    /// The line saying where the face answers, logged when the host starts.
    var announcement: String { get }
    /// Stops answering.
    func stop()
}
